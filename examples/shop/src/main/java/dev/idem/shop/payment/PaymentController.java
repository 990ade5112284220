package dev.idem.shop.payment;

import dev.idem.spring.Idempotent;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.security.Principal;
import java.util.List;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /api/orders/{orderNo}/payments}, and {@code GET /api/payments/steps}. */
@RestController
class PaymentController {

  /**
   * The body: {@code {"method": "CARD"}} or {@code {"method": "WALLET"}}, checked by Spring before
   * the handler runs, so that a refused body stores nothing under its idempotency key.
   */
  record PaymentRequest(
      @NotNull(message = "must be CARD or WALLET")
          @Pattern(regexp = "CARD|WALLET", message = "must be CARD or WALLET")
          String method) {}

  /** The answer. */
  record PaymentView(
      String paymentNo,
      String orderNo,
      String method,
      Object amount,
      String status,
      String reason) {
    static PaymentView of(Payment p) {
      return new PaymentView(
          p.paymentNo(),
          p.orderNo(),
          p.method().name(),
          p.amount(),
          p.status().name(),
          p.failureReason());
    }
  }

  /** A payment and what happened to it, step by step. */
  record PaymentSteps(
      String paymentNo, String orderNo, String method, String status, List<String> steps) {}

  private final PaymentService payments;
  private final PaymentRepository records;
  private final PaymentJournal journal;

  PaymentController(PaymentService payments, PaymentRepository records, PaymentJournal journal) {
    this.payments = payments;
    this.records = records;
    this.journal = journal;
  }

  /** The caller's five latest payments, each with its journal. */
  @GetMapping("/api/payments/steps")
  List<PaymentSteps> steps(Principal principal) {
    return records.latestOf(principal.getName(), 5).stream()
        .map(
            p ->
                new PaymentSteps(
                    p.paymentNo(),
                    p.orderNo(),
                    p.method().name(),
                    p.status().name(),
                    journal.of(p.paymentNo())))
        .toList();
  }

  @Idempotent(operation = "payments", waitFor = "10s")
  @PostMapping("/api/orders/{orderNo}/payments")
  ResponseEntity<PaymentView> pay(
      @PathVariable("orderNo") String orderNo,
      @Valid @RequestBody PaymentRequest request,
      Principal principal) {
    PaymentService.Paid paid =
        payments.pay(principal.getName(), orderNo, PaymentMethod.valueOf(request.method()));
    return ResponseEntity.status(paid.created() ? HttpStatus.CREATED : HttpStatus.OK)
        .body(PaymentView.of(paid.payment()));
  }
}
