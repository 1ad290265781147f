-- Why a standing query stopped for good (e.g. its state grew over --max-standing-state): it is not
-- restarted, and its windows stay readable with the error.
ALTER TABLE standing_query ADD COLUMN error TEXT;

-- The exact groups a window of the query keeps, fixed when it is defined (its saved states hold
-- groups of that size); null for a query defined before: the engine's limit.
ALTER TABLE standing_query ADD COLUMN max_groups INTEGER;

-- What is wrong with a final window's records (e.g. groups beyond the exact-group limit are
-- missing); null when nothing is.
ALTER TABLE standing_window ADD COLUMN error TEXT;
