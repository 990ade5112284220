package dev.idem.shop.payment;

import dev.idem.core.state.StateMachine;

/** The article's payment states. */
public enum PaymentStatus {
  PENDING,
  PROCESSING,
  SUCCESS,
  FAILED;

  /** PENDING → PROCESSING → SUCCESS or FAILED; nothing leaves SUCCESS or FAILED. */
  public static final StateMachine<PaymentStatus> MACHINE =
      StateMachine.builder(PaymentStatus.class)
          .allow(PENDING, PROCESSING, FAILED)
          .allow(PROCESSING, SUCCESS, FAILED)
          .build();
}
