package dev.idem.spring.aop;

import dev.idem.spring.Idempotent;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.DoubleSupplier;
import org.slf4j.MDC;

/** Annotated bean methods that count how often they really ran, per operation name. */
public class Jobs {

  /** A command with an id, for {@code #cmd.id}. */
  public record Settle(String id, long amount, String requestedAt) {}

  /** A stored and replayed return value. */
  public record Receipt(String id, long amount, long serial) {}

  private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
  private final AtomicInteger serial = new AtomicInteger();

  int runs(String name) {
    AtomicInteger count = runs.get(name);
    return count == null ? 0 : count.get();
  }

  private long count(String name) {
    runs.computeIfAbsent(name, n -> new AtomicInteger()).incrementAndGet();
    return serial.incrementAndGet();
  }

  @Idempotent(key = "#cmd.id", fingerprint = "#cmd", ignoreFields = "requestedAt")
  public Receipt settle(Settle cmd) {
    return new Receipt(cmd.id(), cmd.amount(), count("settle"));
  }

  /** The README's bean method: no fingerprint named, so every argument is compared. */
  @Idempotent(key = "#orderNo")
  public Receipt settleAmount(String orderNo, long amount) {
    return new Receipt(orderNo, amount, count("settleAmount"));
  }

  /** The key alone names the call: repeats are not compared. */
  @Idempotent(key = "#orderNo", compareArguments = false)
  public Receipt settleUncompared(String orderNo, long amount) {
    return new Receipt(orderNo, amount, count("settleUncompared"));
  }

  /** Declares a transaction: its effects are in it, so its outcome follows it. */
  @org.springframework.transaction.annotation.Transactional
  @Idempotent(key = "#orderNo")
  public List<Receipt> booked(String orderNo) {
    long n = count("booked");
    return List.of(new Receipt(orderNo, 1, n));
  }

  @Idempotent(key = "#orderNo")
  public List<Receipt> receipts(String orderNo) {
    long n = count("receipts");
    return List.of(new Receipt(orderNo, 1, n), new Receipt(orderNo, 2, n));
  }

  @Idempotent(key = "#p0 + '-' + #a1")
  public String positional(String first, int second) {
    return first + second + " " + count("positional");
  }

  @Idempotent(key = "#key")
  public Optional<Receipt> maybe(String key, boolean present) {
    long n = count("maybe-" + present);
    return present ? Optional.of(new Receipt(key, 0, n)) : Optional.empty();
  }

  @Idempotent(key = "#key")
  public void effect(String key) {
    count("effect");
  }

  @Idempotent(key = "#key")
  public int primitive(String key) {
    return (int) count("primitive");
  }

  @Idempotent(key = "#key", required = false)
  public String optionalKey(String key) {
    return "ran " + count("optionalKey");
  }

  @Idempotent(key = "#key", operation = "refunds")
  public String refund(String key, String outcome) throws IOException {
    count("refund");
    switch (outcome) {
      case "declined" -> throw new IllegalArgumentException("card declined");
      case "timeout" -> throw new IllegalStateException("gateway timed out");
      case "io" -> throw new IOException("connection reset");
      default -> {
        return "refunded " + outcome;
      }
    }
  }

  @Idempotent(key = "#key")
  public String mdc(String key) {
    count("mdc");
    return MDC.get("idem.key");
  }

  @Idempotent(key = "#key", fingerprint = "#key")
  public double during(String key, DoubleSupplier probe) {
    count("during");
    return probe.getAsDouble();
  }

  public String notAnnotated(String key) {
    return key + " " + count("notAnnotated");
  }
}
