package dev.idem.bench.article;

import java.math.BigDecimal;

/** The article's {@code ThirdPartyPayService}: charges a payment at the payment provider. */
@FunctionalInterface
public interface ThirdPartyPay {

  /** Charges {@code amount} under {@code paymentNo}; true when the provider approved. */
  boolean pay(String paymentNo, BigDecimal amount);
}
