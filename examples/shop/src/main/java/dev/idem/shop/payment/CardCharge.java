package dev.idem.shop.payment;

import dev.idem.shop.gateway.FakeGateway;
import dev.idem.shop.gateway.GatewayOutcome;
import dev.idem.shop.gateway.GatewayTimeoutException;
import dev.idem.spring.Idempotent;
import java.math.BigDecimal;
import org.springframework.stereotype.Component;

/**
 * The card charge as a step of the payment's flow: {@code @Idempotent} without a key, so its
 * outcome is stored under the flow's call the moment the gateway answers, and a rerun of the flow
 * (a client's retry, the completer) gets that outcome back instead of charging again. A lost answer
 * stores nothing: the rerun asks the gateway again under the same payment number, which the gateway
 * deduplicates.
 */
@Component
class CardCharge {

  /** The step's name, and so the name of its policy and meters. */
  static final String OPERATION = "card-charge";

  private final FakeGateway gateway;
  private final PaymentJournal journal;

  CardCharge(FakeGateway gateway, PaymentJournal journal) {
    this.gateway = gateway;
    this.journal = journal;
  }

  @Idempotent(operation = OPERATION)
  public GatewayOutcome charge(String paymentNo, String orderNo, BigDecimal amount) {
    try {
      GatewayOutcome outcome = gateway.charge(paymentNo, orderNo, amount);
      journal.write(
          paymentNo, "charge: the gateway answered " + outcome + "; stored as the step's");
      return outcome;
    } catch (GatewayTimeoutException e) {
      journal.write(paymentNo, "charge: the gateway's answer was lost; the step stored nothing");
      throw e;
    }
  }
}
