-- The hot-account wallet modes commit the debit and its ledger row before the payment settles:
-- the row's payment_no is written by the payment's transaction afterwards, so it may be NULL
-- in between (and after a crash, until the reconciliation job settles the payment).
ALTER TABLE wallet_ledger ALTER COLUMN payment_no DROP NOT NULL;
