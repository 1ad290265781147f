-- a second step that works
CREATE TABLE two (y ${TYPE});
