package dev.idem.spring.aop;

import dev.idem.spring.Idempotent;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/** A transactional service that writes a business row per order: the effect to count. */
public class Orders {

  /** What placing an order answers. */
  public record Placed(String orderNo, long amount, long id) {}

  private final JdbcTemplate jdbc;
  private final String table;
  private final AtomicInteger ran = new AtomicInteger();
  private final AtomicInteger charges = new AtomicInteger();

  public Orders(JdbcTemplate jdbc, String table) {
    this.jdbc = jdbc;
    this.table = table;
  }

  int ran() {
    return ran.get();
  }

  /** {@link #place}, for callers that wait for a first call in flight instead of a 409. */
  @Transactional
  @Idempotent(
      key = "#orderNo",
      fingerprint = "#amount",
      waitFor = "30s",
      operation = "Orders.place")
  public Placed placeWaiting(String orderNo, long amount) {
    return place(orderNo, amount);
  }

  @Transactional
  @Idempotent(key = "#orderNo", fingerprint = "#amount")
  public Placed place(String orderNo, long amount) {
    ran.incrementAndGet();
    Long id =
        jdbc.queryForObject(
            "INSERT INTO " + table + " (order_no, amount) VALUES (?, ?) RETURNING id",
            Long.class,
            orderNo,
            amount);
    return new Placed(orderNo, amount, id);
  }

  /**
   * A card charge: its effect is outside every transaction (a call to a gateway), and it declares
   * none, so a rollback of its caller's transaction must not make a retry charge again.
   */
  @Idempotent(key = "#orderNo")
  public long charge(String orderNo) {
    return charges.incrementAndGet();
  }

  int charges() {
    return charges.get();
  }

  @Transactional
  @Idempotent(key = "#orderNo")
  public Placed placeThenFail(String orderNo, long amount) {
    ran.incrementAndGet();
    jdbc.update("INSERT INTO " + table + " (order_no, amount) VALUES (?, ?)", orderNo, amount);
    throw new IllegalStateException("the gateway timed out after the insert");
  }
}
