-- a first step: one table
CREATE TABLE one (x INTEGER);
INSERT INTO one (x) VALUES (1);
