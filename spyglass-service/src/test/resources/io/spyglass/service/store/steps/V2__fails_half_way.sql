-- a second step whose second statement fails: its first must not stay
CREATE TABLE two (y INTEGER);
INSERT INTO no_such_table (z) VALUES (1);
