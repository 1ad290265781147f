-- Saved queries: a name and BQL text, owned by a user; the id makes a link anyone with access opens.
CREATE TABLE saved_query (
  id TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  name TEXT NOT NULL,
  query TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL
);
CREATE INDEX saved_query_by_owner ON saved_query (owner, created_ms);

-- Every query submitted, newest kept per user: what GET /api/history answers.
CREATE TABLE query_history (
  id TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  query TEXT NOT NULL,
  detached INTEGER NOT NULL,
  submitted_ms INTEGER NOT NULL,
  ended_ms INTEGER,
  state TEXT NOT NULL,
  results INTEGER NOT NULL DEFAULT 0,
  error TEXT
);
CREATE INDEX query_history_by_owner ON query_history (owner, submitted_ms);
