-- Where a standing query's results go besides its windows (docs/sinks.md): a JSON array of sinks,
-- [{"type": "webhook", "url": "https://..."}, ...]; null for none.
ALTER TABLE standing_query ADD COLUMN sinks TEXT;
