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
