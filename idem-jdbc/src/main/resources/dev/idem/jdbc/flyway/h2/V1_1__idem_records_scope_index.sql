-- Flyway migration: the index a capped claim counts a scope's live records with. Same statement as the
-- last of schema-h2.sql in this jar (a test keeps them equal). Version 1.1, below any of an
-- application's own versions; a database already past 1 needs spring.flyway.out-of-order=true once.

-- Counts one scope's live records for a capped claim without reading the others'.
CREATE INDEX IF NOT EXISTS idem_records_scope ON idem_records (scope, expires_at);
