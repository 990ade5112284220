-- The shop's tables, in SQL that H2, PostgreSQL and MariaDB all accept. Idem's own tables
-- (idem_records, idem_locks) are V1, from the idem-jdbc jar. Money is DECIMAL(12,2).

CREATE TABLE products (
  sku           VARCHAR(32)   NOT NULL PRIMARY KEY,
  name          VARCHAR(128)  NOT NULL,
  price         DECIMAL(12,2) NOT NULL,
  initial_stock INT           NOT NULL,
  stock         INT           NOT NULL,
  CONSTRAINT products_stock_not_negative CHECK (stock >= 0)
);

CREATE TABLE accounts (
  username        VARCHAR(64)   NOT NULL PRIMARY KEY,
  initial_balance DECIMAL(12,2) NOT NULL,
  balance         DECIMAL(12,2) NOT NULL,
  version         BIGINT        NOT NULL,
  CONSTRAINT accounts_balance_not_negative CHECK (balance >= 0)
);

-- The article's orders table: order_no is the unique index behind every idempotency key.
CREATE TABLE orders (
  order_no   VARCHAR(64)   NOT NULL,
  username   VARCHAR(64)   NOT NULL,
  status     VARCHAR(16)   NOT NULL,
  amount     DECIMAL(12,2) NOT NULL,
  created_at TIMESTAMP     NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT orders_order_no UNIQUE (order_no)
);

CREATE TABLE order_items (
  order_no VARCHAR(64)   NOT NULL,
  sku      VARCHAR(32)   NOT NULL,
  quantity INT           NOT NULL,
  price    DECIMAL(12,2) NOT NULL,
  CONSTRAINT order_items_pk PRIMARY KEY (order_no, sku)
);

-- One deduction per order and SKU: a second attempt to deduct fails on this key.
CREATE TABLE stock_deductions (
  order_no VARCHAR(64) NOT NULL,
  sku      VARCHAR(32) NOT NULL,
  quantity INT         NOT NULL,
  CONSTRAINT stock_deductions_order_sku UNIQUE (order_no, sku)
);

-- The article's payment_records: payment_no unique. active_order_no holds the order number while
-- the payment is PENDING, PROCESSING or SUCCESS and is NULL once it FAILED, so its unique index
-- lets an order have at most one payment that may still take, or has taken, money.
CREATE TABLE payment_records (
  payment_no      VARCHAR(64)   NOT NULL,
  order_no        VARCHAR(64)   NOT NULL,
  active_order_no VARCHAR(64),
  username        VARCHAR(64)   NOT NULL,
  method          VARCHAR(16)   NOT NULL,
  amount          DECIMAL(12,2) NOT NULL,
  status          VARCHAR(16)   NOT NULL,
  failure_reason  VARCHAR(255),
  created_at      TIMESTAMP     NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT payment_records_payment_no UNIQUE (payment_no),
  CONSTRAINT payment_records_active_order UNIQUE (active_order_no)
);
CREATE INDEX payment_records_order ON payment_records (order_no);
CREATE INDEX payment_records_status ON payment_records (status);

-- One wallet debit per order, whatever payment or retry wrote it.
CREATE TABLE wallet_ledger (
  order_no   VARCHAR(64)   NOT NULL,
  username   VARCHAR(64)   NOT NULL,
  payment_no VARCHAR(64)   NOT NULL,
  amount     DECIMAL(12,2) NOT NULL,
  created_at TIMESTAMP     NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT wallet_ledger_order UNIQUE (order_no)
);

-- Messages written in the transaction of the change they announce, relayed afterwards.
CREATE TABLE outbox (
  event_id     VARCHAR(128)  NOT NULL PRIMARY KEY,
  topic        VARCHAR(64)   NOT NULL,
  payload      VARCHAR(2000) NOT NULL,
  created_at   TIMESTAMP     NOT NULL DEFAULT CURRENT_TIMESTAMP,
  published_at TIMESTAMP     NULL
);
CREATE INDEX outbox_unpublished ON outbox (published_at, created_at);

-- Loyalty points, one row per applied event. Deliberately without a unique key on the order:
-- the consumer's inbox is what keeps a redelivered event from counting twice.
CREATE TABLE loyalty_points (
  entry_id   VARCHAR(36) NOT NULL PRIMARY KEY,
  username   VARCHAR(64) NOT NULL,
  order_no   VARCHAR(64) NOT NULL,
  points     BIGINT      NOT NULL,
  created_at TIMESTAMP   NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- The fake payment gateway's own books: it deduplicates by payment_no, as real gateways do.
CREATE TABLE gateway_charges (
  payment_no VARCHAR(64)   NOT NULL PRIMARY KEY,
  order_no   VARCHAR(64)   NOT NULL,
  amount     DECIMAL(12,2) NOT NULL,
  outcome    VARCHAR(16)   NOT NULL,
  created_at TIMESTAMP     NOT NULL DEFAULT CURRENT_TIMESTAMP
);
