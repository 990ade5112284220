package dev.idem.shop.catalog;

import java.math.BigDecimal;

/** A product as {@code GET /api/products} shows it. */
public record Product(String sku, String name, BigDecimal price, int stock) {}
