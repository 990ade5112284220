package dev.idem.shop.payment;

import java.math.BigDecimal;

/** A payment record as the API shows it. */
public record Payment(
    String paymentNo,
    String orderNo,
    String username,
    PaymentMethod method,
    BigDecimal amount,
    PaymentStatus status,
    String failureReason) {}
