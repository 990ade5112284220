package dev.idem.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.bench.article.ArticleLockPayment;
import dev.idem.bench.article.PaymentResult;
import dev.idem.bench.article.ThirdPartyPay;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.redis.RedisIdempotencyStore;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/**
 * The pay pair: the article's Redisson-lock pay flow against Idem's, both on the same PostgreSQL
 * (one HikariCP pool, one table each) and the same Redis. Each order number is paid by several
 * calls at nearly the same moment (see {@link RepeatedUses}); the payment provider approves every
 * charge at once, so the figures are the flows' own cost. After a turn the tables say how many
 * orders were paid more than once and how many not at all.
 */
final class PayPeers implements AutoCloseable {

  static final String ARTICLE = "article PaymentServiceWithLock (Redisson RLock)";
  static final String IDEM = "Idem: engine on Redis, unique open payment, guarded transitions";

  static final String ARTICLE_TABLE = "bench_article_lock_payment";
  static final String IDEM_TABLE = "bench_article_idem_payment";

  private static final BigDecimal AMOUNT = new BigDecimal("19.90");

  private final HikariDataSource pool;
  private final RedissonClient redisson;
  private final RedisIdempotencyStore store;
  private final Idempotency engine;
  private final LongAdder charges = new LongAdder();
  private final ArticleLockPayment article;
  private final IdemPayment idem;
  private final String run = Long.toString(System.currentTimeMillis(), 36);

  PayPeers(RedisRig rig, String url, int connections) throws SQLException {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setMaximumPoolSize(connections);
    config.setMinimumIdle(connections);
    config.setPoolName("idem-bench-pay");
    this.pool = new HikariDataSource(config);
    this.redisson = Redisson.create(LockScenarios.redissonConfig(rig.uri()));
    this.store = RedisIdempotencyStore.create(rig.client(), rig.prefix() + "pay:");
    this.engine = Idempotency.builder(store).build();
    ThirdPartyPay provider =
        (paymentNo, amount) -> {
          charges.increment();
          return true;
        };
    ArticleLockPayment.createTable(pool, ARTICLE_TABLE);
    IdemPayment.createTable(pool, IDEM_TABLE);
    this.article =
        new ArticleLockPayment(
            redisson,
            pool,
            provider,
            ARTICLE_TABLE,
            rig.prefix() + "article:",
            ArticleLockPayment.LOCK_LEASE_SECONDS);
    this.idem =
        new IdemPayment(
            engine,
            IdempotencyConfig.custom().retention(Duration.ofHours(1)).build(),
            pool,
            provider,
            IDEM_TABLE);
  }

  /** The variants, in the order they run. */
  List<String> variants() {
    return List.of(ARTICLE, IDEM);
  }

  /** One turn of {@code variant}: each order paid by {@code uses} calls of the driver's threads. */
  PeerRow measure(String pair, String variant, LoadDriver driver, int uses)
      throws InterruptedException, SQLException {
    String table = variant.equals(ARTICLE) ? ARTICLE_TABLE : IDEM_TABLE;
    String turn = run + "-" + System.nanoTime();
    RepeatedUses<String> orders = new RepeatedUses<>(uses, index -> "O-" + turn + "-" + index);
    LongAdder calls = new LongAdder();
    LongAdder refused = new LongAdder();
    LoadDriver.Result result =
        driver.run(
            () -> {
              RepeatedUses.Use<String> use = orders.next();
              try {
                PaymentResult paid =
                    variant.equals(ARTICLE)
                        ? article.pay(use.value(), AMOUNT)
                        : idem.pay(use.value(), AMOUNT);
                if (paid.refusedAsBusy()) {
                  refused.increment();
                } else if (!"SUCCESS".equals(paid.status())) {
                  throw new IllegalStateException("payment not successful: " + paid);
                }
              } finally {
                use.end();
                calls.increment();
              }
            });
    long paidOrders =
        count(table, "SELECT count(DISTINCT order_no) FROM %s WHERE status = 'SUCCESS'");
    long doubled =
        count(
            table,
            "SELECT coalesce(sum(n - 1), 0) FROM (SELECT count(*) AS n FROM %s"
                + " WHERE status = 'SUCCESS' GROUP BY order_no) paid");
    return new PeerRow(
        pair,
        variant,
        result,
        result.operations(),
        calls.sum(),
        refused.sum(),
        doubled,
        orders.subjects() - paidOrders);
  }

  /** Empties both tables. */
  void reset() throws SQLException {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute("TRUNCATE " + ARTICLE_TABLE + ", " + IDEM_TABLE);
    }
  }

  /** Charges the provider made in all turns. */
  long charges() {
    return charges.sum();
  }

  private long count(String table, String query) throws SQLException {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(query.formatted(table))) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Drops both tables and closes the clients. */
  @Override
  public void close() throws SQLException {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS " + ARTICLE_TABLE + ", " + IDEM_TABLE);
    } finally {
      try {
        engine.close();
        store.close();
        redisson.shutdown();
      } finally {
        pool.close();
      }
    }
  }
}
