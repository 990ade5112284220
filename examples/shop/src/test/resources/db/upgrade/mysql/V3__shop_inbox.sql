-- The removed V3 as it was, for InboxUpgradeTests: the schema a database migrated before the inbox
-- moved into idem_records has.
-- The loyalty consumer's inbox (JdbcInbox): the records table of idem-jdbc under another name.
CREATE TABLE IF NOT EXISTS shop_inbox (
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
  INDEX shop_inbox_expires_at (expires_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;
