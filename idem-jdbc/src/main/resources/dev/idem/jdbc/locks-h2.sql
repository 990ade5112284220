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
