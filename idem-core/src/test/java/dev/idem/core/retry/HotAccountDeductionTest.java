package dev.idem.core.retry;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The article's optimistic-lock deduction: read balance and version, check funds, write only if the
 * version is unchanged. Sixteen threads hammer one account.
 */
class HotAccountDeductionTest {

  private static final int THREADS = 16;
  private static final int DEDUCTIONS_PER_THREAD = 50;

  private record Account(long balance, long version) {}

  private static final class InsufficientBalanceException extends RuntimeException {
    InsufficientBalanceException() {
      super("insufficient balance", null, false, false);
    }
  }

  private final AtomicReference<Account> account = new AtomicReference<>();

  private final OptimisticRetry retry =
      OptimisticRetry.custom()
          .maxAttempts(1_000)
          .baseDelay(Duration.ofNanos(20_000))
          .maxDelay(Duration.ofMillis(1))
          .build();

  /** One attempt: a fresh read, a funds check, and a write guarded by the version read. */
  private Optional<Account> deductOnce(long amount) {
    Account seen = account.get();
    if (seen.balance() < amount) {
      throw new InsufficientBalanceException();
    }
    Account next = new Account(seen.balance() - amount, seen.version() + 1);
    // Stands in for the round trip between SELECT and UPDATE, letting rivals read the same version.
    Thread.yield();
    // Swapping only the very snapshot read stands in for "WHERE version = :seenVersion".
    return account.compareAndSet(seen, next) ? Optional.of(next) : Optional.empty();
  }

  @Test
  void losesNoDeductionUnderContentionAndNeverOverdraws() throws Exception {
    int total = THREADS * DEDUCTIONS_PER_THREAD;
    int shortBy = 10;
    account.set(new Account(total - shortBy, 0));
    AtomicInteger succeeded = new AtomicInteger();
    AtomicInteger refused = new AtomicInteger();
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        workers.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < DEDUCTIONS_PER_THREAD; i++) {
                    try {
                      retry.execute(() -> deductOnce(1));
                      succeeded.incrementAndGet();
                    } catch (InsufficientBalanceException e) {
                      refused.incrementAndGet();
                    }
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> worker : workers) {
        worker.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(succeeded).hasValue(total - shortBy);
    assertThat(refused).hasValue(shortBy);
    assertThat(account.get()).isEqualTo(new Account(0, total - shortBy));
  }
}
