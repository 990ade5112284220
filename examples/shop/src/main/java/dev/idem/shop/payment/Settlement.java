package dev.idem.shop.payment;

import dev.idem.core.state.StateTransitions;
import dev.idem.core.state.TransitionResult;
import dev.idem.shop.gateway.GatewayOutcome;
import dev.idem.shop.messaging.PaymentSucceeded;
import dev.idem.shop.order.OrderRepository;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Settles a payment: one guarded transition out of PROCESSING, and only the call that made it
 * applies the effects (order PAID and its event, or the order set free), in the same transaction.
 * The payment's flow, however many times it runs, and every callback come here, in any order and
 * any number of times.
 */
@Component
public class Settlement {

  private final StateTransitions<String, PaymentStatus> transitions;
  private final PaymentRepository payments;
  private final OrderRepository orders;
  private final ApplicationEventPublisher events;
  private final TransactionTemplate tx;

  Settlement(
      StateTransitions<String, PaymentStatus> transitions,
      PaymentRepository payments,
      OrderRepository orders,
      ApplicationEventPublisher events,
      TransactionTemplate tx) {
    this.transitions = transitions;
    this.payments = payments;
    this.orders = orders;
    this.events = events;
    this.tx = tx;
  }

  /** Settles a card payment from what the gateway said of it. */
  public TransitionResult<PaymentStatus> settle(Payment payment, GatewayOutcome outcome) {
    return switch (outcome) {
      case APPROVED -> settle(payment, PaymentStatus.SUCCESS, null);
      case DECLINED -> settle(payment, PaymentStatus.FAILED, "declined by the gateway");
    };
  }

  /** PROCESSING to SUCCESS or FAILED with its effects; a repeat answers AlreadyThere. */
  public TransitionResult<PaymentStatus> settle(Payment payment, PaymentStatus to, String reason) {
    return tx.execute(
        s -> {
          TransitionResult<PaymentStatus> result =
              transitions.transition(payment.paymentNo(), PaymentStatus.PROCESSING, to);
          if (result.changed()) {
            if (to == PaymentStatus.SUCCESS) {
              succeeded(payment);
            } else {
              payments.release(payment.paymentNo(), reason);
            }
          }
          return result;
        });
  }

  /**
   * The effects of success; call inside the transaction that made the transition. The event's
   * publication is written in that transaction (Spring Modulith's registry), so it exists exactly
   * when the payment succeeded.
   */
  void succeeded(Payment payment) {
    orders.markPaid(payment.orderNo());
    events.publishEvent(
        new PaymentSucceeded(
            payment.paymentNo(), payment.orderNo(), payment.username(), payment.amount()));
  }
}
