package dev.idem.bench;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Hands out subjects (tokens, order numbers) so that each is used {@code uses} times by whichever
 * threads take the next uses, which in a closed loop means nearly at once: a double click or a
 * retry storm. The first use of a subject makes it (issues the token), the others wait for it. Each
 * subject counts its uses and its effects, so that after a run the subjects used more than once and
 * those never applied can be counted.
 */
final class RepeatedUses<V> {

  /** Makes the subject of index {@code index}. */
  @FunctionalInterface
  interface Maker<V> {
    V make(long index) throws Exception;
  }

  /** One subject: its value once made, how many uses ended, how many had an effect. */
  static final class Subject<V> {
    final CompletableFuture<V> value = new CompletableFuture<>();
    final AtomicInteger ended = new AtomicInteger();
    final AtomicInteger effects = new AtomicInteger();
  }

  /** One use of a subject. */
  record Use<V>(Subject<V> subject, V value) {
    /** Notes that this use had its effect (ran the work). */
    void applied() {
      subject.effects.incrementAndGet();
    }

    /** Notes that this use is over. */
    void end() {
      subject.ended.incrementAndGet();
    }
  }

  private final int uses;
  private final Maker<V> maker;
  private final AtomicLong next = new AtomicLong();
  private final ConcurrentMap<Long, Subject<V>> subjects = new ConcurrentHashMap<>();

  RepeatedUses(int uses, Maker<V> maker) {
    this.uses = uses;
    this.maker = maker;
  }

  /** The next use: makes its subject when it is the first one, else waits until it is made. */
  Use<V> next() throws Exception {
    long seq = next.getAndIncrement();
    long index = seq / uses;
    Subject<V> subject = subjects.computeIfAbsent(index, i -> new Subject<>());
    if (seq % uses == 0) {
      try {
        subject.value.complete(maker.make(index));
      } catch (Exception | Error e) {
        subject.value.completeExceptionally(e);
        throw e;
      }
    }
    return new Use<>(subject, subject.value.join());
  }

  /** How many subjects were used at all. */
  long subjects() {
    return subjects.size();
  }

  /** Subjects whose uses all ended and none had an effect. */
  long neverApplied() {
    return subjects.values().stream()
        .filter(s -> s.ended.get() == uses && s.effects.get() == 0)
        .count();
  }

  /** Effects beyond the first, over all subjects. */
  long doubled() {
    return subjects.values().stream().mapToLong(s -> Math.max(0, s.effects.get() - 1)).sum();
  }

  /** Subjects with more than one effect. */
  long subjectsDoubled() {
    return subjects.values().stream().filter(s -> s.effects.get() > 1).count();
  }
}
