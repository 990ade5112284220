package dev.idem.spring.kafka;

import dev.idem.spring.Idempotent;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** An effect outside the listener's transaction (a notice sent): a keyless step of the record. */
public class Notifier {

  private final Map<String, AtomicInteger> sent = new ConcurrentHashMap<>();

  @Idempotent
  public String notify(String body) {
    return "notice " + sent.computeIfAbsent(body, b -> new AtomicInteger()).incrementAndGet();
  }

  /** How often the notice of {@code body} was sent. */
  public int sent(String body) {
    AtomicInteger n = sent.get(body);
    return n == null ? 0 : n.get();
  }
}
