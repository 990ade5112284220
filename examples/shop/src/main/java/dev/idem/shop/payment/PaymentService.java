package dev.idem.shop.payment;

import dev.idem.core.state.StateTransitions;
import dev.idem.shop.ShopException;
import dev.idem.shop.gateway.FakeGateway;
import dev.idem.shop.gateway.GatewayOutcome;
import dev.idem.shop.order.Order;
import dev.idem.shop.order.OrderRepository;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Pays an order. Every step is safe to repeat on its own, whatever key the client sends: the
 * order's one open payment is found or created (unique index on active_order_no), moved to
 * PROCESSING (guarded transition), charged under its payment number (the gateway deduplicates; the
 * wallet has a ledger row unique per order), and settled by a guarded transition whose winner alone
 * applies the effects.
 */
@Service
public class PaymentService {

  /** The payment, and whether this call created it. */
  public record Paid(Payment payment, boolean created) {}

  private final OrderRepository orders;
  private final PaymentRepository payments;
  private final StateTransitions<String, PaymentStatus> transitions;
  private final FakeGateway gateway;
  private final WalletCharger wallet;
  private final Settlement settlement;
  private final TransactionTemplate tx;

  PaymentService(
      OrderRepository orders,
      PaymentRepository payments,
      StateTransitions<String, PaymentStatus> transitions,
      FakeGateway gateway,
      WalletCharger wallet,
      Settlement settlement,
      TransactionTemplate tx) {
    this.orders = orders;
    this.payments = payments;
    this.transitions = transitions;
    this.gateway = gateway;
    this.wallet = wallet;
    this.settlement = settlement;
    this.tx = tx;
  }

  public Paid pay(String username, String orderNo, PaymentMethod method) {
    Order order =
        orders
            .find(orderNo)
            .filter(owned -> owned.username().equals(username))
            .map(OrderRepository.Owned::order)
            .orElseThrow(() -> ShopException.notFound("no order " + orderNo));
    Optional<Payment> open = payments.active(orderNo);
    boolean created = false;
    if (open.isEmpty() && !Order.PAID.equals(order.status())) {
      String paymentNo = "PAY-" + UUID.randomUUID().toString().replace("-", "").substring(0, 24);
      try {
        payments.insertPending(paymentNo, orderNo, username, method, order.amount());
        created = true;
      } catch (DuplicateKeyException e) {
        // another request opened the order's payment first: carry on with that one
      }
      open = payments.active(orderNo);
    }
    Payment payment = open.orElseThrow(() -> paid(orderNo, null));
    if (payment.status() == PaymentStatus.SUCCESS) {
      throw paid(orderNo, payment.paymentNo());
    }
    if (payment.method() != method) {
      throw ShopException.conflict(
          "payment-in-progress",
          "order " + orderNo + " is being paid by " + payment.method(),
          Map.of("paymentNo", payment.paymentNo()));
    }
    tx.executeWithoutResult(
        s -> {
          if (transitions
              .transition(payment.paymentNo(), PaymentStatus.PENDING, PaymentStatus.PROCESSING)
              .changed()) {
            payments.startedProcessing(payment.paymentNo());
          }
        });
    drive(payment);
    return new Paid(payments.find(payment.paymentNo()).orElseThrow(), created);
  }

  private void drive(Payment payment) {
    if (payment.method() == PaymentMethod.WALLET) {
      wallet.charge(payment);
      return;
    }
    GatewayOutcome outcome =
        gateway.charge(payment.paymentNo(), payment.orderNo(), payment.amount());
    settle(settlement, payment, outcome);
  }

  /** Applies what the gateway said. */
  static void settle(Settlement settlement, Payment payment, GatewayOutcome outcome) {
    switch (outcome) {
      case APPROVED -> settlement.settle(payment, PaymentStatus.SUCCESS, null);
      case DECLINED -> settlement.settle(payment, PaymentStatus.FAILED, "declined by the gateway");
      case CANCELLED ->
          settlement.settle(payment, PaymentStatus.FAILED, "closed unpaid by reconciliation");
    }
  }

  private static ShopException paid(String orderNo, String paymentNo) {
    return ShopException.conflict(
        "order-paid",
        "order " + orderNo + " is paid already",
        paymentNo == null ? Map.of("orderNo", orderNo) : Map.of("paymentNo", paymentNo));
  }
}
