-- An application's own first migration, version 1 as most applications number it.
CREATE TABLE shop_orders (id BIGINT NOT NULL PRIMARY KEY, total BIGINT NOT NULL);
