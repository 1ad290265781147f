-- Alerts: a condition on the final windows of a standing query, kept in the standing queries'
-- database (their windows are the input; their tables have their own version table).
CREATE TABLE alert (
  name VARCHAR(200) PRIMARY KEY,
  standing_query VARCHAR(200) NOT NULL,
  -- 1 when the standing query was defined with the alert: it is deleted with it
  owns_query INTEGER NOT NULL,
  owner VARCHAR(200) NOT NULL,
  created_ms BIGINT NOT NULL,
  -- the definition as JSON: condition, sink, format, quiet period, labels
  spec TEXT NOT NULL,
  -- the start of the last final window evaluated (later ones are evaluated next) and its end;
  -- before any, the newest window's start when the alert was defined, and no end
  cursor_start BIGINT NOT NULL,
  cursor_end BIGINT,
  -- until when (epoch ms) it sends nothing; 0 when not muted
  muted_until BIGINT NOT NULL,
  -- events forgotten before they were delivered (its history keeps the newest only)
  dropped BIGINT NOT NULL
);

-- Each group of an alert whose state matters: firing, or resolved within its quiet period.
CREATE TABLE alert_group (
  alert VARCHAR(200) NOT NULL,
  group_id VARCHAR(64) NOT NULL,
  labels TEXT NOT NULL,
  firing INTEGER NOT NULL,
  -- whether its firing was sent (not kept quiet or muted): its resolution is sent only then
  notified INTEGER NOT NULL,
  -- the end of the window where it last resolved; null before
  resolved_end BIGINT,
  PRIMARY KEY (alert, group_id)
);

-- Fired and resolved events, one per group and window at most; the outbox of their delivery.
CREATE TABLE alert_event (
  alert VARCHAR(200) NOT NULL,
  group_id VARCHAR(64) NOT NULL,
  window_start BIGINT NOT NULL,
  window_end BIGINT NOT NULL,
  seq BIGINT NOT NULL,
  state VARCHAR(16) NOT NULL,
  labels TEXT NOT NULL,
  row_values TEXT NOT NULL,
  time_ms BIGINT NOT NULL,
  -- pending (to send), delivered, quiet (fired again within the quiet period), muted, dropped
  delivery VARCHAR(16) NOT NULL,
  attempts INTEGER NOT NULL,
  last_error TEXT,
  delivered_ms BIGINT,
  PRIMARY KEY (alert, group_id, window_start)
);

CREATE INDEX alert_event_seq ON alert_event (alert, seq);
