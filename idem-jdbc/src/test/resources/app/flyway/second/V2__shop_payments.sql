-- An application's own second migration.
CREATE TABLE shop_payments (id BIGINT NOT NULL PRIMARY KEY, order_id BIGINT NOT NULL);
