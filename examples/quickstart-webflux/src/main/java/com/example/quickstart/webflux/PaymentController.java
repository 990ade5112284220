package com.example.quickstart.webflux;

import dev.idem.core.Idempotency;
import dev.idem.core.IdempotentOperation;
import dev.idem.spring.Idempotent;
import dev.idem.spring.ReactiveIdempotency;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

@RestController
class PaymentController {
  private final Gateway gateway;

  PaymentController(Gateway gateway) {
    this.gateway = gateway;
  }

  @Idempotent(operation = "payments") // the Idempotency-Key header; repeats get the first answer
  @PostMapping("/payments")
  Mono<Receipt> pay(@RequestBody Payment payment) {
    return gateway.charge(payment.order(), payment.amount());
  }
}

@RestController
class RefundController {
  private final ReactiveIdempotency reactive;
  private final IdempotentOperation<String> refunds;
  private final Gateway gateway;

  RefundController(ReactiveIdempotency reactive, Idempotency idempotency, Gateway gateway) {
    this.reactive = reactive;
    this.refunds = idempotency.operation("refunds");
    this.gateway = gateway;
  }

  @PostMapping("/refunds") // the key is the refund's own id, from the body
  Mono<String> refund(@RequestBody Refund refund) {
    String request = refund.order() + ":" + refund.amount();
    return reactive.execute(
        refunds, refund.id(), request, ctx -> gateway.refund(refund.order(), refund.amount()));
  }
}

/** A payment provider that answers after 50 ms, and counts what it did per order. */
@Service
class Gateway {
  final Map<String, AtomicInteger> charges = new ConcurrentHashMap<>();
  final Map<String, AtomicInteger> refunds = new ConcurrentHashMap<>();

  Mono<Receipt> charge(String order, long amount) {
    return Mono.delay(Duration.ofMillis(50))
        .map(
            tick -> {
              charges.computeIfAbsent(order, o -> new AtomicInteger()).incrementAndGet();
              return new Receipt(order, amount);
            });
  }

  Mono<String> refund(String order, long amount) {
    return Mono.delay(Duration.ofMillis(50))
        .map(
            tick -> {
              refunds.computeIfAbsent(order, o -> new AtomicInteger()).incrementAndGet();
              return "refunded " + amount + " on " + order;
            });
  }
}

record Payment(String order, long amount) {}

record Refund(String id, String order, long amount) {}

record Receipt(String order, long amount) {}
