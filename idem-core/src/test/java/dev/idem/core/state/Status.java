package dev.idem.core.state;

/** The order status used throughout the state tests. */
enum Status {
  PENDING,
  PROCESSING,
  SUCCESS,
  FAILED;

  /** PENDING -> PROCESSING -> SUCCESS | FAILED, with FAILED -> PENDING for a retry. */
  static StateMachine<Status> machine() {
    return StateMachine.builder(Status.class)
        .allow(PENDING, PROCESSING)
        .allow(PROCESSING, SUCCESS, FAILED)
        .allow(FAILED, PENDING)
        .build();
  }
}
