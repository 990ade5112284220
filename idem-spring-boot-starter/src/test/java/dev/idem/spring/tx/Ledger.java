package dev.idem.spring.tx;

import dev.idem.spring.Idempotent;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/**
 * A transactional service that writes one business row per call and then ends in the ways a real
 * service does: a checked exception (Spring commits), an exception marked {@code noRollbackFor}
 * (commits), an unchecked one (rolls back), or success in a transaction of its own.
 */
public class Ledger {

  private final JdbcTemplate jdbc;
  private final String table;
  private final AtomicInteger runs = new AtomicInteger();

  public Ledger(JdbcTemplate jdbc, String table) {
    this.jdbc = jdbc;
    this.table = table;
  }

  /** How many times any method ran its body. */
  public int runs() {
    return runs.get();
  }

  /** Rows written for {@code orderNo}, as committed. */
  public int rows(String orderNo) {
    Integer n =
        jdbc.queryForObject(
            "SELECT COUNT(*) FROM " + table + " WHERE order_no = ?", Integer.class, orderNo);
    return n == null ? 0 : n;
  }

  @Transactional
  @Idempotent(key = "#orderNo")
  public String insertThenThrowChecked(String orderNo) throws IOException {
    insert(orderNo);
    throw new IOException("the gateway's reply was lost after the insert");
  }

  @Transactional(noRollbackFor = IllegalStateException.class)
  @Idempotent(key = "#orderNo")
  public String insertThenThrowKept(String orderNo) {
    insert(orderNo);
    throw new IllegalStateException("declined, and the attempt is kept");
  }

  @Transactional
  @Idempotent(key = "#orderNo")
  public String insertThenThrowRolledBack(String orderNo) {
    insert(orderNo);
    throw new IllegalStateException("the gateway timed out; everything rolls back");
  }

  @Transactional(propagation = Propagation.REQUIRES_NEW)
  @Idempotent(key = "#orderNo")
  public String insertInOwnTransaction(String orderNo) {
    insert(orderNo);
    return "receipt-" + orderNo;
  }

  private void insert(String orderNo) {
    runs.incrementAndGet();
    jdbc.update("INSERT INTO " + table + " (order_no) VALUES (?)", orderNo);
  }
}
