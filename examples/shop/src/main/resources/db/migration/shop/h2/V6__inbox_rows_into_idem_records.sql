-- The loyalty consumer's inbox moved from shop_inbox (V3, removed) into idem_records. A database
-- migrated before the move has shop_inbox with the inbox rows written so far: they are copied as
-- they are (same columns, written by the same JdbcInbox code under scope consumer:loyalty, so the
-- id, the digest of scope and message id, is the same in either table), so a message processed
-- before the upgrade stays a duplicate after it. Rows idem_records has already (a delivery after
-- an upgrade that ran without this migration) are kept. Then shop_inbox goes.
-- A database created without V3 has no shop_inbox: the CREATE below makes an empty one, so that
-- one script fits both. Every step may run again (MariaDB commits DDL at once: a migration stopped
-- half-way is finished by running it again).
CREATE TABLE IF NOT EXISTS shop_inbox (
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

INSERT INTO idem_records (id, scope, key_value, state, fingerprint, fence, owner, lease_until, expires_at, token,
  token_expires_at, outcome_kind, outcome, updated_at)
SELECT s.id, s.scope, s.key_value, s.state, s.fingerprint, s.fence, s.owner, s.lease_until, s.expires_at, s.token,
  s.token_expires_at, s.outcome_kind, s.outcome, s.updated_at
FROM shop_inbox s
WHERE NOT EXISTS (SELECT 1 FROM idem_records r WHERE r.id = s.id);

DROP TABLE shop_inbox;
