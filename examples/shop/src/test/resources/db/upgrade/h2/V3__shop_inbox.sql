-- The removed V3 as it was, for InboxUpgradeTests: the schema a database migrated before the inbox
-- moved into idem_records has.
-- The loyalty consumer's inbox (JdbcInbox): the records table of idem-jdbc under another name.
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
CREATE INDEX IF NOT EXISTS shop_inbox_expires_at ON shop_inbox (expires_at);
