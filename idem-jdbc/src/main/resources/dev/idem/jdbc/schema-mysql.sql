-- Idem records on MariaDB 10.5+ and MySQL 8. Times are milliseconds since the epoch by the
-- database's clock.
CREATE TABLE IF NOT EXISTS idem_records (
  id               CHAR(64) CHARACTER SET ascii NOT NULL PRIMARY KEY,
  scope            VARCHAR(512) NOT NULL,
  key_value        VARCHAR(255) CHARACTER SET ascii NOT NULL,
  state            VARCHAR(16)  NOT NULL,
  fingerprint      VARCHAR(64) CHARACTER SET ascii NOT NULL,
  fence            BIGINT       NOT NULL,
  owner            VARCHAR(64) CHARACTER SET ascii,
  lease_until      BIGINT,
  expires_at       BIGINT       NOT NULL,
  token            BOOLEAN      NOT NULL,
  token_expires_at BIGINT,
  outcome_kind     VARCHAR(8),
  outcome          LONGBLOB,
  updated_at       BIGINT       NOT NULL,
  INDEX idem_records_expires_at (expires_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
-- Counts one scope's live records for a capped claim without reading the others'. A separate
-- statement, so that it also reaches a table made before it. MySQL has no IF NOT EXISTS here, and
-- JdbcSchema passes over the index that exists.
CREATE INDEX idem_records_scope ON idem_records (scope, expires_at);
