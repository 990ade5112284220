package dev.idem.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * The shop on the {@link Backend} of the run (the embedded default unless the build asks for
 * PostgreSQL or MariaDB), started once on a random port and driven over real HTTP. After every test
 * the audit must be ok once the outbox has drained.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@ActiveProfiles(resolver = Backend.Profiles.class)
abstract class EndToEnd {

  static {
    Backend.current().prepareOnce();
  }

  @DynamicPropertySource
  static void backendProperties(DynamicPropertyRegistry registry) {
    Backend.current().addProperties(registry);
  }

  @LocalServerPort int port;
  @Autowired JdbcTemplate jdbc;

  ShopClient alice;
  ShopClient bob;
  ShopClient admin;

  @BeforeEach
  void logIn() {
    alice = new ShopClient(port, "alice", "alice");
    bob = new ShopClient(port, "bob", "bob");
    admin = new ShopClient(port, "admin", "admin");
  }

  @AfterEach
  void theAuditIsOk() {
    JsonNode report =
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> admin.get("/api/audit").json(),
                r ->
                    r.path("pendingMessages").asLong() == 0
                        && r.path("pendingPoints").asLong() == 0
                        && r.path("pendingDebits").asLong() == 0);
    assertThat(report.path("violations").toString()).isEqualTo("[]");
    assertThat(report.path("ok").asBoolean()).isTrue();
  }

  long count(String sql, Object... args) {
    Long n = jdbc.queryForObject(sql, Long.class, args);
    return n == null ? 0 : n;
  }

  static String key() {
    return UUID.randomUUID().toString();
  }

  // What the payment suites read of the shop's tables and API.

  /**
   * A WALLET payment caught in PROCESSING, as a crash in the middle of its transaction (or a
   * version before the payment's flow) leaves it, with no flow of it for the completer to finish.
   */
  void insertWalletProcessing(String paymentNo, String orderNo, String username, String amount) {
    jdbc.update(
        "INSERT INTO payment_records (payment_no, order_no, active_order_no, username, method,"
            + " amount, status, processing_since) VALUES (?, ?, ?, ?, 'WALLET', "
            + amount
            + ", 'PROCESSING', TIMESTAMP '2000-01-01 00:00:00')",
        paymentNo,
        orderNo,
        orderNo,
        username);
  }

  /**
   * Makes the database refuse the order as PAID (a CHECK constraint), so that settling its payment
   * fails; returns the constraint's name, to drop it.
   */
  String refusePaid(String orderNo) {
    String constraint = "poison_" + key().substring(0, 8);
    jdbc.execute(
        "ALTER TABLE orders ADD CONSTRAINT "
            + constraint
            + " CHECK (order_no <> '"
            + orderNo
            + "' OR status <> 'PAID')");
    return constraint;
  }

  String openPaymentOf(String orderNo) {
    return jdbc.queryForObject(
        "SELECT payment_no FROM payment_records WHERE active_order_no = ?", String.class, orderNo);
  }

  String status(String paymentNo) {
    return jdbc.queryForObject(
        "SELECT status FROM payment_records WHERE payment_no = ?", String.class, paymentNo);
  }

  long charges(String orderNo) {
    return count(
        "SELECT COUNT(*) FROM gateway_requests WHERE order_no = ? AND outcome = 'APPROVED'",
        orderNo);
  }

  static BigDecimal balance(ShopClient client) {
    return client.get("/api/accounts/me").json().path("balance").decimalValue();
  }

  /** The publications of the order's payment event (one per listener: the shop has one). */
  long events(String orderNo) {
    return count(
        "SELECT COUNT(*) FROM EVENT_PUBLICATION WHERE serialized_event LIKE ?",
        "%\"orderNo\":\"" + orderNo + "\"%");
  }
}
