package dev.idem.spring.messaging;

import dev.idem.core.ExecutionOutcome;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyListener;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/** Every outcome the engine reports, for tests to wait on. */
public final class OutcomeLog implements IdempotencyListener {

  private record Entry(String value, ExecutionOutcome outcome) {}

  private final Queue<Entry> entries = new ConcurrentLinkedQueue<>();

  @Override
  public void onOutcome(IdempotencyKey key, ExecutionOutcome outcome) {
    entries.add(new Entry(key.value(), outcome));
  }

  /** How often {@code messageId} ended with {@code outcome}. */
  public long count(String messageId, ExecutionOutcome outcome) {
    return entries.stream()
        .filter(e -> e.value().equals(messageId) && e.outcome() == outcome)
        .count();
  }

  /** How many calls ended with {@code outcome}, whatever the message. */
  public long count(ExecutionOutcome outcome) {
    return entries.stream().filter(e -> e.outcome() == outcome).count();
  }
}
