-- Idem's tables on H2 2.x.
-- Every statement creates only what is missing, so the file may run again on a database that has
-- them. It is the one source of these tables: JdbcSchema runs it (the starter's
-- idem.jdbc.initialize-schema), Flyway as a callback before every migrate (this folder as a
-- location: it has no version to clash with the application's, needs no out-of-order run on a
-- database already past its first versions, and the application's own migrations may use the
-- tables), Liquibase through dev/idem/jdbc/liquibase/changelog.xml. Times are milliseconds since
-- the epoch by the database's clock.

-- One row per key; id is the digest of the key's scope and value.
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

-- One row per lock name, kept after release (owner NULL) so that the fence keeps growing.
-- expires_at is when an idle row may be purged.
CREATE TABLE IF NOT EXISTS idem_locks (
  name        VARCHAR(255) NOT NULL PRIMARY KEY,
  owner       VARCHAR(64),
  fence       BIGINT       NOT NULL,
  lease_until BIGINT       NOT NULL,
  expires_at  BIGINT       NOT NULL
);
CREATE INDEX IF NOT EXISTS idem_locks_expires_at ON idem_locks (expires_at);

-- One row per resumable call a completer may have to finish; id is the digest of the operation and
-- the call's key (one row a key), operation the digest of the operation's name (compared byte for
-- byte, whatever the collation).
CREATE TABLE IF NOT EXISTS idem_resumes (
  id          CHAR(64)     NOT NULL PRIMARY KEY,
  operation   CHAR(64)     NOT NULL,
  scope       VARCHAR(512) NOT NULL,
  key_value   VARCHAR(255) NOT NULL,
  fingerprint VARCHAR(64)  NOT NULL,
  input       VARBINARY    NOT NULL,
  attempts    INTEGER      NOT NULL,
  abandoned   BOOLEAN      NOT NULL,
  due_at      BIGINT       NOT NULL,
  expires_at  BIGINT       NOT NULL
);
CREATE INDEX IF NOT EXISTS idem_resumes_due ON idem_resumes (operation, abandoned, due_at);
CREATE INDEX IF NOT EXISTS idem_resumes_expires_at ON idem_resumes (expires_at);
