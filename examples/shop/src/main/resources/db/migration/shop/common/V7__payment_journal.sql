-- What happened to each payment, step by step, for the page: which run drove its flow (a request or
-- Idem's completer), whether the card charge ran or was replayed from its step, how the flow ended.
-- Written from the database's clock.
CREATE TABLE payment_journal (
  payment_no VARCHAR(64)  NOT NULL,
  written_at TIMESTAMP(6) NOT NULL,
  entry      VARCHAR(255) NOT NULL
);
CREATE INDEX payment_journal_payment ON payment_journal (payment_no, written_at);
