package dev.idem.shop.payment;

import dev.idem.core.ExecutionOutcome;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyListener;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * What happened to each payment, step by step (table payment_journal), for the page: which run
 * drove its flow (a shopper's request or Idem's completer), whether the card charge ran at the
 * gateway or came back from its step, how the flow ended. The flow and the charge write what they
 * do; replays, which run no code of theirs, are heard from the engine ({@link
 * IdempotencyListener}). A demonstration's record: a write that fails is logged and dropped, never
 * the payment's failure.
 */
@Component
public class PaymentJournal implements IdempotencyListener {

  /** One line of a payment's journal. */
  public record Entry(String paymentNo, String entry) {}

  private static final Logger log = LoggerFactory.getLogger(PaymentJournal.class);

  // set while a shopper's request drives a flow on this thread; a run without it is the completer's
  private static final ThreadLocal<Boolean> REQUEST = new ThreadLocal<>();

  private final JdbcTemplate jdbc;

  PaymentJournal(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  /** Runs {@code flow} as a shopper's request, so that the journal names it so. */
  static <T> T asRequest(Supplier<T> flow) {
    REQUEST.set(Boolean.TRUE);
    try {
      return flow.get();
    } finally {
      REQUEST.remove();
    }
  }

  /** Who runs the flow on this thread, as the page names it. */
  static String runner() {
    return REQUEST.get() != null ? "a payment request" : "the completer";
  }

  void write(String paymentNo, String entry) {
    try {
      jdbc.update(
          "INSERT INTO payment_journal (payment_no, written_at, entry) VALUES (?, LOCALTIMESTAMP(6),"
              + " ?)",
          paymentNo,
          entry.length() > 255 ? entry.substring(0, 255) : entry);
    } catch (RuntimeException e) {
      log.warn("could not write the journal of {}: {}", paymentNo, e.toString());
    }
  }

  /** The journal of the payment, oldest first. */
  public List<String> of(String paymentNo) {
    return jdbc.queryForList(
        "SELECT entry FROM payment_journal WHERE payment_no = ? ORDER BY written_at",
        String.class,
        paymentNo);
  }

  @Override
  public void onOutcome(IdempotencyKey key, ExecutionOutcome outcome) {
    if (outcome != ExecutionOutcome.REPLAYED || !PaymentFlow.OPERATION.equals(key.scope())) {
      return;
    }
    String step = key.stepPath();
    if (step == null) {
      write(key.value(), runner() + " got the flow's stored answer; nothing ran again");
    } else if (step.startsWith(CardCharge.OPERATION)) {
      write(key.value(), "charge: its stored outcome came back; the gateway was not asked again");
    }
  }
}
