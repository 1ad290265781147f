-- Standing queries: their text and their combiner state as of the last checkpoint.
CREATE TABLE standing_query (
  name VARCHAR(200) PRIMARY KEY,
  query TEXT NOT NULL,
  owner VARCHAR(200) NOT NULL,
  created_ms BIGINT NOT NULL,
  state ${BLOB}
);

-- Final windows of standing queries: their records (a JSON array) and late documents.
CREATE TABLE standing_window (
  name VARCHAR(200) NOT NULL,
  window_start BIGINT NOT NULL,
  window_end BIGINT NOT NULL,
  records TEXT NOT NULL,
  late BIGINT NOT NULL,
  PRIMARY KEY (name, window_start)
);

-- The ingest log position the saved states cover: replay starts there after a restart.
CREATE TABLE ingest_checkpoint (
  id INTEGER PRIMARY KEY,
  log_position BIGINT NOT NULL,
  taken_ms BIGINT NOT NULL
);

CREATE TABLE standing_schema_version (
  version INTEGER PRIMARY KEY
);
