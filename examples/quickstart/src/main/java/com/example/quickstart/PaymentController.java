package com.example.quickstart;

import dev.idem.spring.Idempotent;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

@RestController
class PaymentController {
  private final Settlements settlements;

  PaymentController(Settlements settlements) {
    this.settlements = settlements;
  }

  @Idempotent(operation = "payments", ignoreFields = "requestedAt")
  @PostMapping("/payments")
  Receipt pay(@RequestBody Payment payment) {
    return settlements.settle(payment.order(), payment.amount()); // once per key; repeats replayed
  }
}

@Service
class Settlements {
  private final JdbcTemplate db;

  Settlements(JdbcTemplate db) {
    this.db = db;
  }

  @Transactional // JDBC join mode: the record commits with your rows, or vanishes with them
  @Idempotent(key = "#orderNo") // any bean method, keyed by SpEL: once per order, whatever the key
  public Receipt settle(String orderNo, long amount) {
    db.update("INSERT INTO settlements (order_no, amount) VALUES (?, ?)", orderNo, amount);
    return new Receipt(orderNo, amount);
  }
}

record Payment(String order, long amount, String requestedAt) {}

record Receipt(String order, long amount) {}
