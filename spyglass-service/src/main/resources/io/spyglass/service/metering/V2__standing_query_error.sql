-- Why a standing query stopped for good (e.g. its state grew over --max-standing-state): it is not
-- restarted, and its windows stay readable with the error.
ALTER TABLE standing_query ADD COLUMN error TEXT;

-- What is wrong with a final window's records (e.g. groups beyond the exact-group limit are
-- missing); null when nothing is.
ALTER TABLE standing_window ADD COLUMN error TEXT;
