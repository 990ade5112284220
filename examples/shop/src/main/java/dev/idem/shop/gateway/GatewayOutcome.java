package dev.idem.shop.gateway;

/** What the gateway did with a payment number. */
public enum GatewayOutcome {
  /** Money taken. */
  APPROVED,
  /** Refused, no money taken. */
  DECLINED
}
