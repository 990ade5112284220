package dev.idem.shop.wallet;

import java.math.BigDecimal;

/** A wallet as {@code GET /api/accounts/me} shows it. */
public record Account(String username, BigDecimal balance, long version) {}
