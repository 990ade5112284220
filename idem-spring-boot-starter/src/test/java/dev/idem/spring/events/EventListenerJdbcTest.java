package dev.idem.spring.events;

import static dev.idem.spring.StartFailures.stoppedTheStart;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.Idempotency;
import dev.idem.core.store.StoreCapability;
import dev.idem.spring.EventId;
import dev.idem.spring.Idempotent;
import dev.idem.spring.autoconfigure.IdemAopAutoConfiguration;
import dev.idem.spring.autoconfigure.IdemAutoConfiguration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/**
 * {@code idem.events.store=jdbc}: an event listener's record is written in the listener's own
 * transaction on the application's DataSource while the rest of the application keeps {@code
 * idem.store} (memory here), so the record and the listener's rows commit or roll back together: an
 * event delivered again after the commit finds the record, one whose transaction rolled back runs
 * again.
 */
class EventListenerJdbcTest {

  // one instance: the transaction manager and the template must share it to share a transaction
  private final DataSource dataSource = h2("idem-events-" + UUID.randomUUID());

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(IdemAutoConfiguration.class, IdemAopAutoConfiguration.class))
          .withUserConfiguration(Transactions.class)
          .withBean(DataSource.class, () -> dataSource)
          .withBean(
              PlatformTransactionManager.class, () -> new DataSourceTransactionManager(dataSource))
          .withBean(JdbcTemplate.class, () -> new JdbcTemplate(dataSource))
          .withBean(Points.class)
          .withPropertyValues(
              "idem.store=memory", "idem.events.store=jdbc", "idem.jdbc.initialize-schema=always");

  /** An event whose identity is its id. */
  public record Paid(@EventId String id, String orderNo) {}

  /** Another, for the listener without a transaction of its own. */
  public record Shipped(@EventId String id, String orderNo) {}

  @Configuration(proxyBeanMethods = false)
  @EnableTransactionManagement
  static class Transactions {}

  /** Writes a row per event in a transaction of its own, as a Modulith listener does. */
  public static class Points {
    private final JdbcTemplate jdbc;
    private final AtomicBoolean failAfterWrite = new AtomicBoolean();

    public Points(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
      jdbc.execute("CREATE TABLE IF NOT EXISTS points (order_no VARCHAR(40) NOT NULL)");
    }

    @Idempotent
    @EventListener
    @Transactional(propagation = Propagation.REQUIRES_NEW)
    public void on(Paid event) {
      jdbc.update("INSERT INTO points (order_no) VALUES (?)", event.orderNo());
      if (failAfterWrite.getAndSet(false)) {
        throw new IllegalStateException("the listener failed after its write");
      }
    }

    /** No transaction of its own: the advice opens one, as for a message listener. */
    @Idempotent
    @EventListener
    public void on(Shipped event) {
      jdbc.update("INSERT INTO points (order_no) VALUES (?)", event.orderNo());
      if (failAfterWrite.getAndSet(false)) {
        throw new IllegalStateException("the listener failed after its write");
      }
    }

    public void failNextAfterWrite() {
      failAfterWrite.set(true);
    }

    public long rows(String orderNo) {
      return jdbc.queryForObject(
          "SELECT COUNT(*) FROM points WHERE order_no = ?", Long.class, orderNo);
    }

    public long records(String id) {
      return jdbc.queryForObject(
          "SELECT COUNT(*) FROM idem_records WHERE key_value = ?", Long.class, id);
    }
  }

  private static DataSource h2(String db) {
    JdbcDataSource h2 = new JdbcDataSource();
    h2.setURL("jdbc:h2:mem:" + db + ";DB_CLOSE_DELAY=-1");
    return h2;
  }

  @Test
  void theRecordCommitsWithTheListenersRowsInItsDatabaseWhateverTheApplicationsStore() {
    runner.run(
        context -> {
          Points points = context.getBean(Points.class);
          String id = UUID.randomUUID().toString();
          context.publishEvent(new Paid(id, "A-1"));
          context.publishEvent(new Paid(id, "A-1"));

          assertThat(points.rows("A-1")).isEqualTo(1);
          assertThat(points.records("Paid/" + id)).isEqualTo(1);
          assertThat(context.getBean(Idempotency.class).store().capabilities())
              .doesNotContain(StoreCapability.JOINS_TRANSACTIONS);
        });
  }

  @Test
  void aListenerWhoseTransactionRolledBackLeavesNoRecordAndRunsAgain() {
    String id = UUID.randomUUID().toString();
    rollsBackThenAppliesOnce(new Paid(id, "A-2"), "A-2", "Paid/" + id);
  }

  @Test
  void aListenerWithoutATransactionOfItsOwnGetsOneAroundItsWritesAndTheRecord() {
    String id = UUID.randomUUID().toString();
    rollsBackThenAppliesOnce(new Shipped(id, "S-1"), "S-1", "Shipped/" + id);
  }

  // the listener fails after its write: neither row nor record; then two deliveries apply it once
  private void rollsBackThenAppliesOnce(Object event, String orderNo, String key) {
    runner.run(
        context -> {
          Points points = context.getBean(Points.class);
          points.failNextAfterWrite();
          assertThatThrownBy(() -> context.publishEvent(event))
              .hasMessageContaining("failed after its write");
          assertThat(points.rows(orderNo)).isZero();
          assertThat(points.records(key)).isZero();

          context.publishEvent(event);
          context.publishEvent(event);
          assertThat(points.rows(orderNo)).isEqualTo(1);
          assertThat(points.records(key)).isEqualTo(1);
        });
  }

  @Test
  void aJdbcStoreThatWouldNotJoinTheListenersTransactionsStopsTheStart() {
    runner
        .withPropertyValues("idem.jdbc.join-transactions=false")
        .run(c -> stoppedTheStart(c, "idem.events.store is jdbc", "join-transactions is false"));
  }

  @Test
  void withoutATransactionManagerTheStartStops() {
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(IdemAutoConfiguration.class, IdemAopAutoConfiguration.class))
        .withBean(DataSource.class, () -> dataSource)
        .withPropertyValues("idem.store=memory", "idem.events.store=jdbc")
        .run(c -> stoppedTheStart(c, "idem.events.store is jdbc", "no transaction manager"));
  }
}
