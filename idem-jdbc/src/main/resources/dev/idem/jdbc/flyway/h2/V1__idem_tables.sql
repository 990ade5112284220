-- Flyway migration: Idem's records and locks tables. Same statements as schema-h2.sql and locks-h2.sql
-- in this jar (a test keeps them equal). Add classpath:db/migration/idem/h2 to spring.flyway.locations.

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

-- Idem locks on H2 2.x. One row per lock name, kept after release (owner NULL) so that the fence
-- keeps growing. expires_at is when an idle row may be purged. Times are milliseconds since the
-- epoch by the database's clock.
CREATE TABLE IF NOT EXISTS idem_locks (
  name        VARCHAR(255) NOT NULL PRIMARY KEY,
  owner       VARCHAR(64),
  fence       BIGINT       NOT NULL,
  lease_until BIGINT       NOT NULL,
  expires_at  BIGINT       NOT NULL
);
CREATE INDEX IF NOT EXISTS idem_locks_expires_at ON idem_locks (expires_at);
