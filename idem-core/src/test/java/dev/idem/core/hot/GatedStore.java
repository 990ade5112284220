package dev.idem.core.hot;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An in-memory store that holds its first batch until opened, records the size of every batch, the
 * largest batch and the most batches applied at once, and can fail every batch that holds a
 * poisoned request id.
 */
final class GatedStore implements HotAccountStore<String> {

  static final String POISON = "poison";

  final InMemoryHotAccountStore<String> memory = new InMemoryHotAccountStore<>();
  final CountDownLatch entered = new CountDownLatch(1);
  private final CountDownLatch gate;
  private final AtomicInteger running = new AtomicInteger();
  final AtomicInteger mostAtOnce = new AtomicInteger();
  final AtomicInteger largestBatch = new AtomicInteger();
  final AtomicInteger calls = new AtomicInteger();
  final List<Integer> sizes = new CopyOnWriteArrayList<>();

  GatedStore(boolean gated) {
    this.gate = new CountDownLatch(gated ? 1 : 0);
  }

  void open() {
    gate.countDown();
  }

  @Override
  public List<DeductionResult> apply(String account, List<Deduction> batch) {
    mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
    largestBatch.accumulateAndGet(batch.size(), Math::max);
    calls.incrementAndGet();
    sizes.add(batch.size());
    try {
      entered.countDown();
      if (!gate.await(60, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the test never opened the gate");
      }
      if (batch.stream().anyMatch(d -> d.requestId().equals(POISON))) {
        throw new IllegalStateException("boom");
      }
      return memory.apply(account, batch);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } finally {
      running.decrementAndGet();
    }
  }
}
