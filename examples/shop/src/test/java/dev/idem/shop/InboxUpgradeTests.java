package dev.idem.shop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.consumer.IdempotentConsumer.Delivery;
import dev.idem.jdbc.JdbcDialect;
import dev.idem.jdbc.JdbcInbox;
import dev.idem.jdbc.JdbcStoreConfig;
import dev.idem.shop.messaging.LoyaltyPoints;
import dev.idem.shop.messaging.PaymentSucceeded;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Upgrading a database migrated before the loyalty inbox moved from {@code shop_inbox} (V3, since
 * removed) into {@code idem_records}: a message processed before the upgrade is still a duplicate
 * after it. Each database extends it with an empty database of its own.
 */
abstract class InboxUpgradeTests {

  /** An empty database, for this test only. */
  abstract DataSource dataSource();

  /** The folder of the database's migrations: h2, postgresql or mysql. */
  abstract String vendor();

  @Test
  void aMessageProcessedBeforeTheUpgradeIsStillADuplicateAfterIt() throws Exception {
    // The schema as the version before the move left it: V1 to V5, with V3's shop_inbox.
    migrate("5", "classpath:db/upgrade/" + vendor());
    String before = eventId("PAY-before-upgrade");
    try (JdbcInbox old =
        new JdbcInbox(
            dataSource(),
            JdbcStoreConfig.custom(JdbcDialect.detect(dataSource())).table("shop_inbox"),
            "loyalty")) {
      assertThat(old.receive(before, c -> {})).isEqualTo(Delivery.PROCESSED);
    }

    migrate("latest");
    // The loyalty consumer's records after the move: idem_records, the consumer group's scope.
    try (JdbcInbox moved =
        new JdbcInbox(
            dataSource(),
            JdbcStoreConfig.custom(JdbcDialect.detect(dataSource())),
            LoyaltyPoints.GROUP)) {
      assertThat(moved.receive(before, c -> {})).isEqualTo(Delivery.DUPLICATE);
      assertThat(moved.receive(eventId("PAY-after-upgrade"), c -> {}))
          .isEqualTo(Delivery.PROCESSED);
    }
    assertThat(tableExists("shop_inbox")).isFalse();
  }

  @Test
  void aDatabaseCreatedWithoutTheOldInboxTableMigratesToo() throws Exception {
    migrate("latest");

    assertThat(tableExists("shop_inbox")).isFalse();
    assertThat(tableExists("idem_records")).isTrue();
  }

  @Test
  void theGatewaysBooksMoveToItsKeysAndACardPaymentLeftProcessingKeepsItsPaymentNumberAsKey()
      throws Exception {
    // As the version with its reconciliation job left them: V7 is the last before the move.
    migrate("7");
    JdbcTemplate jdbc = new JdbcTemplate(dataSource());
    String payment =
        "INSERT INTO payment_records (payment_no, order_no, username, method, amount, status)"
            + " VALUES (?, ?, 'alice', ?, 2.00, ?)";
    jdbc.update(payment, "PAY-card", "ORD-1", "CARD", "PROCESSING");
    jdbc.update(payment, "PAY-wallet", "ORD-2", "WALLET", "PROCESSING");
    jdbc.update(payment, "PAY-paid", "ORD-3", "CARD", "SUCCESS");
    String charge =
        "INSERT INTO gateway_charges (payment_no, order_no, amount, outcome) VALUES (?, ?, 2.00, ?)";
    jdbc.update(charge, "PAY-card", "ORD-1", "APPROVED");
    jdbc.update(charge, "PAY-closed", "ORD-4", "CANCELLED");

    migrate("latest");

    assertThat(
            jdbc.queryForList(
                "SELECT request_key, payment_no, outcome FROM gateway_requests ORDER BY"
                    + " request_key"))
        .extracting(row -> row.values().stream().map(String::valueOf).toList())
        .containsExactly(
            List.of("PAY-card", "PAY-card", "APPROVED"),
            List.of("PAY-closed", "PAY-closed", "DECLINED"));
    assertThat(
            jdbc.queryForList(
                "SELECT payment_no FROM payment_records WHERE gateway_key = payment_no",
                String.class))
        .containsExactly("PAY-card");
    assertThat(tableExists("gateway_charges")).isFalse();
  }

  // The shop's own migrations up to target (plus extra locations); the removed V3 is let pass
  // as the shop's configuration does.
  private void migrate(String target, String... extra) {
    String[] locations = {
      "classpath:dev/idem/jdbc/flyway/" + vendor(),
      "classpath:db/migration/shop/common",
      "classpath:db/migration/shop/" + vendor()
    };
    String[] all = new String[locations.length + extra.length];
    System.arraycopy(locations, 0, all, 0, locations.length);
    System.arraycopy(extra, 0, all, locations.length, extra.length);
    Flyway.configure()
        .dataSource(dataSource())
        .locations(all)
        .target(target)
        .ignoreMigrationPatterns("*:missing")
        .load()
        .migrate();
  }

  private static String eventId(String paymentNo) {
    return new PaymentSucceeded(paymentNo, "ORD-1", "alice", new BigDecimal("3.00")).eventId();
  }

  private boolean tableExists(String table) throws SQLException {
    try (Connection c = dataSource().getConnection()) {
      for (String name : new String[] {table, table.toUpperCase(java.util.Locale.ROOT)}) {
        try (ResultSet tables = c.getMetaData().getTables(c.getCatalog(), null, name, null)) {
          if (tables.next()) {
            return true;
          }
        }
      }
      return false;
    }
  }
}
