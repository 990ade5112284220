-- When a payment entered PROCESSING (the reconciliation job's age) and when an order was paid
-- (the audit's deadline for its loyalty points); both written from the database's clock.
ALTER TABLE payment_records ADD COLUMN processing_since TIMESTAMP NULL;
ALTER TABLE orders ADD COLUMN paid_at TIMESTAMP NULL;
