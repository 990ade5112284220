-- Flyway migration: Idem's records and locks tables. Same statements as schema-mysql.sql and locks-mysql.sql
-- in this jar (a test keeps them equal). Add classpath:db/migration/idem/mysql to spring.flyway.locations.

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

-- Idem locks on MariaDB 10.5+ and MySQL 8. One row per lock name, kept after release (owner NULL)
-- so that the fence keeps growing. expires_at is when an idle row may be purged. Times are
-- milliseconds since the epoch by the database's clock. The name is stored as its UTF-8 bytes:
-- the character collations would make 'Lock' and 'lock ' the same lock.
CREATE TABLE IF NOT EXISTS idem_locks (
  name        VARBINARY(1020) NOT NULL PRIMARY KEY,
  owner       VARCHAR(64) CHARACTER SET ascii,
  fence       BIGINT       NOT NULL,
  lease_until BIGINT       NOT NULL,
  expires_at  BIGINT       NOT NULL,
  INDEX idem_locks_expires_at (expires_at)
) ENGINE = InnoDB;
