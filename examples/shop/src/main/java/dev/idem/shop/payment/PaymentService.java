package dev.idem.shop.payment;

import dev.idem.shop.ShopException;
import dev.idem.shop.order.Order;
import dev.idem.shop.order.OrderRepository;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.stereotype.Service;

/**
 * Pays an order, whatever key the client sends: the order's one open payment is found or created
 * (unique index on active_order_no), and its {@link PaymentFlow} drives it to its end (or, run
 * already, answers where it ended). Two requests for one order, with two keys, meet at the same
 * payment and so at the same flow.
 */
@Service
public class PaymentService {

  /** The payment, and whether this call created it. */
  public record Paid(Payment payment, boolean created) {}

  private final OrderRepository orders;
  private final PaymentRepository payments;
  private final PaymentFlow flow;

  PaymentService(OrderRepository orders, PaymentRepository payments, PaymentFlow flow) {
    this.orders = orders;
    this.payments = payments;
    this.flow = flow;
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
    PaymentJournal.asRequest(() -> flow.complete(payment.paymentNo()));
    return new Paid(payments.find(payment.paymentNo()).orElseThrow(), created);
  }

  private static ShopException paid(String orderNo, String paymentNo) {
    return ShopException.conflict(
        "order-paid",
        "order " + orderNo + " is paid already",
        paymentNo == null ? Map.of("orderNo", orderNo) : Map.of("paymentNo", paymentNo));
  }
}
