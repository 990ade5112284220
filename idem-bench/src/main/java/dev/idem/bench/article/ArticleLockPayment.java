package dev.idem.bench.article;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/**
 * The article's {@code PaymentServiceWithLock} (section 3, "结合 Redis 的完整实现"), as written, on
 * PostgreSQL: take Redisson's {@code RLock} {@code pay:lock:<orderNo>} with {@code tryLock(0, 30,
 * SECONDS)} (a busy order answers "processing" at once), read the order's payment by {@code
 * order_no}, return it if there is one, else insert a PENDING payment under a new payment number,
 * call the payment provider, update the status to SUCCESS or FAILED, and unlock in {@code finally}
 * if the lock is still held by this thread. Each statement commits on its own, as the article's
 * mappers run outside a transaction.
 *
 * <p>The table follows the article's {@code payment_records}: {@code payment_no} unique, {@code
 * order_no} not. One change: a plain (non-unique) index on {@code order_no}, which the article's
 * schema lacks, so that the benchmark measures the flow and not a table scan.
 *
 * <p><b>Flaw.</b> Nothing in the database stops a second payment of the same order: the only guard
 * is the lock, and it is a lease. When a call stalls past the lease's 30 s after its check found no
 * payment and before its insert (a GC pause, a slow network, a failover that lost the lock), a
 * second call takes the lock, finds nothing, and pays; then the first resumes and pays again. The
 * lock carries no fencing token, so the late call's writes cannot be refused. A repeat that comes
 * while the first call runs is told "processing" rather than given its result, and one that comes
 * after a stall past the lease but before the first payment settled gets the PENDING record.
 */
public final class ArticleLockPayment {

  /** The article's lock lease: 30 s. */
  public static final long LOCK_LEASE_SECONDS = 30;

  private final RedissonClient redisson;
  private final DataSource dataSource;
  private final ThirdPartyPay thirdPartyPay;
  private final String table;
  private final String lockPrefix;
  private final long leaseSeconds;

  /**
   * @param table the payments table, created by {@link #createTable}
   * @param lockPrefix what lock names start with, before the article's {@code "pay:lock:"}
   * @param leaseSeconds the lock's lease; the article's is {@link #LOCK_LEASE_SECONDS}
   */
  public ArticleLockPayment(
      RedissonClient redisson,
      DataSource dataSource,
      ThirdPartyPay thirdPartyPay,
      String table,
      String lockPrefix,
      long leaseSeconds) {
    this.redisson = redisson;
    this.dataSource = dataSource;
    this.thirdPartyPay = thirdPartyPay;
    this.table = table;
    this.lockPrefix = lockPrefix;
    this.leaseSeconds = leaseSeconds;
  }

  /** Creates the article's {@code payment_records} as {@code table} (PostgreSQL), if missing. */
  public static void createTable(DataSource dataSource, String table) throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS "
              + table
              + " (id BIGSERIAL PRIMARY KEY, payment_no VARCHAR(64) NOT NULL UNIQUE,"
              + " order_no VARCHAR(64) NOT NULL, amount DECIMAL(10, 2) NOT NULL,"
              + " status VARCHAR(20) NOT NULL, pay_time TIMESTAMP NULL,"
              + " created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)");
      s.execute("CREATE INDEX IF NOT EXISTS " + table + "_order_no ON " + table + " (order_no)");
    }
  }

  /** The article's {@code pay(orderNo, amount)}. */
  public PaymentResult pay(String orderNo, BigDecimal amount) throws SQLException {
    RLock lock = redisson.getLock(lockPrefix + "pay:lock:" + orderNo);
    try {
      boolean locked = lock.tryLock(0, leaseSeconds, TimeUnit.SECONDS);
      if (!locked) {
        return PaymentResult.processing("payment in progress");
      }
      return doPay(orderNo, amount);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return PaymentResult.failed("system busy");
    } finally {
      if (lock.isHeldByCurrentThread()) {
        lock.unlock();
      }
    }
  }

  private PaymentResult doPay(String orderNo, BigDecimal amount) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      // 1. check the payment status (the idempotency check)
      PaymentResult existing = selectByOrderNo(c, orderNo);
      if (existing != null) {
        return existing;
      }
      // 2. create the payment record
      String paymentNo = "P" + UUID.randomUUID().toString().replace("-", "");
      insert(c, paymentNo, orderNo, amount);
      // 3. call the payment provider
      boolean success = thirdPartyPay.pay(paymentNo, amount);
      // 4. update the status
      String status = success ? "SUCCESS" : "FAILED";
      updateStatus(c, paymentNo, status);
      return new PaymentResult(paymentNo, status, success ? "paid" : "declined");
    }
  }

  private PaymentResult selectByOrderNo(Connection c, String orderNo) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT payment_no, status FROM " + table + " WHERE order_no = ?")) {
      ps.setString(1, orderNo);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? new PaymentResult(rs.getString(1), rs.getString(2), "found") : null;
      }
    }
  }

  private void insert(Connection c, String paymentNo, String orderNo, BigDecimal amount)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO "
                + table
                + " (payment_no, order_no, amount, status) VALUES (?, ?, ?, 'PENDING')")) {
      ps.setString(1, paymentNo);
      ps.setString(2, orderNo);
      ps.setBigDecimal(3, amount);
      ps.executeUpdate();
    }
  }

  private void updateStatus(Connection c, String paymentNo, String status) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("UPDATE " + table + " SET status = ? WHERE payment_no = ?")) {
      ps.setString(1, status);
      ps.setString(2, paymentNo);
      ps.executeUpdate();
    }
  }
}
