-- Flyway migration: the index a capped claim counts a scope's live records with. Same statement as the
-- last of schema-mysql.sql in this jar (a test keeps them equal). Version 1.1, below any of an
-- application's own versions; a database already past 1 needs spring.flyway.out-of-order=true once.

-- Counts one scope's live records for a capped claim without reading the others'. A separate
-- statement, so that it also reaches a table made before it. MySQL has no IF NOT EXISTS here, and
-- JdbcSchema passes over the index that exists.
CREATE INDEX idem_records_scope ON idem_records (scope, expires_at);
