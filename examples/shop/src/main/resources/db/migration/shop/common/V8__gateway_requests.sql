-- The fake gateway deduplicates by the Idempotency-Key it receives, as Stripe does, no longer by
-- payment number: one row per key, so a merchant that sent two keys for one payment would be
-- charged twice, and the audit and the tests count what the shop's keys did. The rows of
-- gateway_charges become requests keyed by their payment number, the key the shop sent then.
CREATE TABLE gateway_requests (
  request_key VARCHAR(255)  NOT NULL PRIMARY KEY,
  payment_no  VARCHAR(64)   NOT NULL,
  order_no    VARCHAR(64)   NOT NULL,
  amount      DECIMAL(12,2) NOT NULL,
  outcome     VARCHAR(16)   NOT NULL,
  created_at  TIMESTAMP     NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX gateway_requests_payment ON gateway_requests (payment_no);
CREATE INDEX gateway_requests_order ON gateway_requests (order_no);
-- CANCELLED (the old reconciliation job closed a payment number the gateway never saw) is a
-- charge that took no money: DECLINED, which settles its payment FAILED.
INSERT INTO gateway_requests (request_key, payment_no, order_no, amount, outcome, created_at)
  SELECT payment_no, payment_no, order_no, amount,
         CASE WHEN outcome = 'CANCELLED' THEN 'DECLINED' ELSE outcome END, created_at
  FROM gateway_charges;
DROP TABLE gateway_charges;
-- A card payment the previous version left PROCESSING may have been charged under its payment
-- number: its flow asks the gateway again under that key, never under a new one.
ALTER TABLE payment_records ADD COLUMN gateway_key VARCHAR(255) NULL;
UPDATE payment_records SET gateway_key = payment_no WHERE method = 'CARD' AND status = 'PROCESSING';
