-- Idem records on H2 2.x. Times are milliseconds since the epoch by the database's clock.
CREATE TABLE IF NOT EXISTS idem_records (
  id               CHAR(64)     NOT NULL PRIMARY KEY,
  scope            VARCHAR(512) NOT NULL,
  key_value        VARCHAR(255) NOT NULL,
  state            VARCHAR(16)  NOT NULL,
  fingerprint      VARCHAR(64)  NOT NULL,
  fence            BIGINT       NOT NULL,
  owner            VARCHAR(64),
  lease_until      BIGINT,
  expires_at       BIGINT       NOT NULL,
  token            BOOLEAN      NOT NULL,
  token_expires_at BIGINT,
  outcome_kind     VARCHAR(8),
  outcome          VARBINARY,
  updated_at       BIGINT       NOT NULL
);
CREATE INDEX IF NOT EXISTS idem_records_expires_at ON idem_records (expires_at);
-- Counts one scope's live records for a capped claim without reading the others'.
CREATE INDEX IF NOT EXISTS idem_records_scope ON idem_records (scope, expires_at);
