package dev.idem.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.idem.shop.ShopClient.Answer;
import dev.idem.testsupport.ChildJvm;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * The article's payment flow on the whole shop, killed at each of its recovery points: a child JVM
 * ({@link PaymentCrashApp}) takes the card payment and halts (as SIGKILL would) before the gateway
 * is called, inside the gateway's call (money taken, answer lost), after the charge step stored its
 * outcome, or after the settlement committed; a second shop on the same PostgreSQL database, Idem
 * store and RabbitMQ (this JVM) finishes the payment, either because the client repeats its request
 * with its key or because its completer finds the flow unfinished. Whichever it is: one charge at
 * the gateway, the payment SUCCESS once, the order PAID, the loyalty points given once by the
 * consumer, and every repeat of the key answers the same. Each point once, on Idem's JDBC store or
 * on Redis, finished by the client or by the completer: each of those on both stores.
 */
class PaymentCrashServicesIT {

  private static final String DATABASE = "shop_flow_it";
  private static final String URL = "jdbc:postgresql://127.0.0.1:5432/" + DATABASE;
  private static final String PREFIX = "shop-flow-it-" + UUID.randomUUID() + ":";
  private static final Duration STARTUP = Duration.ofSeconds(120);
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  private static final Map<String, ConfigurableApplicationContext> SURVIVORS = new HashMap<>();

  @BeforeAll
  static void createDatabase() {
    ServicesDatabase.recreatePostgres(DATABASE);
  }

  @AfterAll
  static void stopSurvivors() {
    SURVIVORS.values().forEach(ConfigurableApplicationContext::close);
    ServicesDatabase.dropPostgres(DATABASE);
  }

  @ParameterizedTest(name = "{0} store, killed {1}, finished by the {2}")
  @CsvSource({
    "jdbc, before-charge, completer",
    "redis, in-charge, completer",
    "redis, after-charge, client",
    "jdbc, after-settle, client"
  })
  void aPaymentKilledAtARecoveryPointIsFinishedWithEachEffectOnce(
      String store, String point, String finisher) throws Exception {
    ShopClient survivor = new ShopClient(port(survivor(store)), "alice", "alice");
    String orderNo = survivor.order("STICKER", 1);
    String key = UUID.randomUUID().toString();

    try (ChildJvm child = ChildJvm.start(PaymentCrashApp.class, arguments(store, point))) {
      int childPort = Integer.parseInt(child.awaitLine("READY", STARTUP).substring(6).trim());
      ShopClient doomed = new ShopClient(childPort, "alice", "alice");
      assertThatThrownBy(() -> doomed.pay(orderNo, "CARD", key))
          .isInstanceOf(UncheckedIOException.class);
      child.awaitLine("AT " + point, PATIENCE);
      assertThat(child.awaitExit(PATIENCE)).isEqualTo(137);
    }

    Answer answer;
    if (finisher.equals("client")) {
      // the client's retry waits out the dead process's leases, as a client with backoff would
      answer =
          await()
              .atMost(PATIENCE)
              .pollInterval(Duration.ofMillis(500))
              .until(() -> survivor.pay(orderNo, "CARD", key), a -> a.status() < 500);
    } else {
      await()
          .atMost(PATIENCE)
          .until(() -> survivor.get("/api/orders/" + orderNo).text("status"), "PAID"::equals);
      answer = survivor.pay(orderNo, "CARD", key);
      assertThat(answer.status()).isEqualTo(409);
    }

    String paymentNo = only("SELECT payment_no FROM payment_records WHERE order_no = ?", orderNo);
    if (answer.status() == 409) {
      assertThat(answer.text("type")).isEqualTo("urn:shop:problem:order-paid");
    } else {
      assertThat(answer.text("status")).isEqualTo("SUCCESS");
    }
    assertThat(answer.text("paymentNo")).isEqualTo(paymentNo);
    Answer repeat = survivor.pay(orderNo, "CARD", key);
    assertThat(repeat.status()).isEqualTo(answer.status());
    assertThat(repeat.text("paymentNo")).isEqualTo(paymentNo);
    assertThat(count("SELECT COUNT(*) FROM gateway_requests WHERE order_no = ?", orderNo))
        .isEqualTo(1);
    assertThat(only("SELECT status FROM payment_records WHERE order_no = ?", orderNo))
        .isEqualTo("SUCCESS");
    assertThat(survivor.get("/api/orders/" + orderNo).text("status")).isEqualTo("PAID");
    await()
        .atMost(PATIENCE)
        .until(
            () ->
                count(
                    "SELECT COUNT(*) FROM event_publication WHERE completion_date IS NULL"
                        + " AND serialized_event LIKE ?",
                    "%\"orderNo\":\"" + orderNo + "\"%"),
            n -> n == 0);
    await()
        .atMost(PATIENCE)
        .until(() -> count("SELECT COUNT(*) FROM loyalty_points WHERE order_no = ?", orderNo) > 0);
    assertThat(count("SELECT COUNT(*) FROM loyalty_points WHERE order_no = ?", orderNo))
        .isEqualTo(1);
  }

  private static synchronized ConfigurableApplicationContext survivor(String store) {
    return SURVIVORS.computeIfAbsent(
        store, s -> new SpringApplicationBuilder(ShopApplication.class).run(arguments(s, "none")));
  }

  private static int port(ConfigurableApplicationContext context) {
    return Integer.parseInt(context.getEnvironment().getRequiredProperty("local.server.port"));
  }

  // command-line arguments: they come before application.yml and application-services.yml
  private static String[] arguments(String store, String crash) {
    List<String> args = new ArrayList<>();
    args.addAll(
        List.of(
            "--spring.profiles.active=services",
            "--server.port=0",
            "--spring.datasource.url=" + URL,
            "--spring.ai.mcp.server.enabled=false",
            "--idem.store=" + store,
            "--idem.redis.key-prefix=" + PREFIX,
            "--shop.rabbit.exchange=shop-flow-it.events",
            "--shop.rabbit.queue=shop-flow-it.loyalty",
            "--shop.gateway.secret=shop-flow-it-secret",
            "--shop.gateway.latency=0ms",
            "--shop.gateway.failure-rate=0",
            "--shop.gateway.timeout-rate=0",
            "--shop.gateway.callbacks=false",
            "--shop.users.alice.password=alice",
            "--shop.users.alice.balance=100.00",
            // a dead process's claims end soon, and the completer looks often
            "--idem.policies.payments.lease=2s",
            "--idem.policies.payment-flow.lease=2s",
            "--idem.policies.card-charge.lease=2s",
            "--idem.completer.interval=300ms",
            "--idem.completer.first-backoff=500ms",
            // a dead process's event delivery goes stale soon and is resubmitted
            "--spring.modulith.events.staleness.published=2s",
            "--spring.modulith.events.staleness.processing=2s",
            "--spring.modulith.events.staleness.resubmission=2s",
            "--spring.modulith.events.staleness.check-intervall=500ms",
            "--shop.messaging.resubmit-interval=300ms",
            "--shop.messaging.resubmit-older-than=1s",
            "--test.crash=" + crash));
    return args.toArray(String[]::new);
  }

  private static long count(String sql, Object... args) {
    Long n = jdbc().queryForObject(sql, Long.class, args);
    return n == null ? 0 : n;
  }

  private static String only(String sql, Object... args) {
    return jdbc().queryForObject(sql, String.class, args);
  }

  private static JdbcTemplate jdbc() {
    return new JdbcTemplate(new DriverManagerDataSource(URL, "postgres", ""));
  }
}
