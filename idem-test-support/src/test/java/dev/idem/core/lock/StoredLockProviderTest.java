package dev.idem.core.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.testsupport.LockProviderContract;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Runs the lock contract on the wait loop's other branch: a storage that, like a database table,
 * neither announces releases nor tells how long the holder's lease still runs, so its waiters back
 * off. {@link InMemoryLockProviderTest} covers the announcing branch.
 */
class StoredLockProviderTest extends LockProviderContract {

  private final MutableClock clock = MutableClock.ticking();
  private final StoredLockProvider provider =
      new StoredLockProvider(
          new Silent(new InMemoryLockStorage(clock), new AtomicInteger(), Duration.ZERO));

  @Override
  protected LockProvider provider() {
    return provider;
  }

  @Override
  protected void letTimePass(Duration duration) {
    clock.advance(duration);
  }

  /**
   * Sixteen threads of one provider wait for a held lock, then take it one after the other, over a
   * storage that takes a millisecond per attempt, as a database does. Only one of them at a time
   * tries the storage; the others queue behind it, so a release costs the storage one attempt, not
   * one per waiter (a herd of attempts, all but one refused, on every release).
   */
  @Test
  void waitersOfOneProviderTryTheStorageOneAtATime() throws Exception {
    int waiters = 16;
    AtomicInteger waitingAttempts = new AtomicInteger();
    StoredLockProvider provider =
        new StoredLockProvider(
            new Silent(
                new InMemoryLockStorage(MutableClock.ticking()),
                waitingAttempts,
                Duration.ofMillis(1)));
    String name = "hot-" + UUID.randomUUID();
    LockHandle holder = provider.tryLock(name, Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
    ExecutorService threads = Executors.newFixedThreadPool(waiters);
    try {
      List<Thread> started = new CopyOnWriteArrayList<>();
      List<Future<Boolean>> taken = new ArrayList<>();
      for (int i = 0; i < waiters; i++) {
        taken.add(
            threads.submit(
                () -> {
                  started.add(Thread.currentThread());
                  Optional<LockHandle> handle =
                      provider.tryLock(name, Duration.ofSeconds(20), Duration.ofSeconds(30));
                  // The work under the lock lasts as long as two attempts.
                  LockSupport.parkNanos(Duration.ofMillis(2).toNanos());
                  handle.ifPresent(LockHandle::close);
                  return handle.isPresent();
                }));
      }
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  started.size() == waiters
                      && started.stream()
                          .allMatch(t -> t.getState() == Thread.State.TIMED_WAITING));
      waitingAttempts.set(0);
      holder.close();
      for (Future<Boolean> each : taken) {
        assertThat(each.get(20, TimeUnit.SECONDS)).isTrue();
      }
      assertThat(waitingAttempts.get()).isLessThan(3 * waiters);
    } finally {
      threads.shutdownNow();
    }
  }

  /**
   * A waiter whose wait runs out while it queues behind another tries once before it gives up: the
   * one whose turn it is may be stuck in a slow storage call (or asleep in its backoff) while the
   * lock is free.
   */
  @Test
  void aWaiterWhoseWaitRunsOutInTheQueueStillTriesOnce() throws Exception {
    String name = "queued-" + UUID.randomUUID();
    CountDownLatch stuck = new CountDownLatch(1);
    CountDownLatch letGo = new CountDownLatch(1);
    Thread[] slow = new Thread[1]; // its first attempt is the slow one
    LockStorage memory = new InMemoryLockStorage(MutableClock.ticking());
    LockStorage storage =
        new Silent(memory, new AtomicInteger(), Duration.ZERO) {
          @Override
          public Attempt acquire(String lock, String owner, Duration lease, boolean waiting) {
            if (Thread.currentThread() == slow[0]) {
              slow[0] = null;
              stuck.countDown();
              try {
                letGo.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return Attempt.refused(Duration.ZERO);
            }
            return super.acquire(lock, owner, lease, waiting);
          }
        };
    StoredLockProvider provider = new StoredLockProvider(storage);
    ExecutorService threads = Executors.newSingleThreadExecutor();
    try {
      Future<Optional<LockHandle>> first =
          threads.submit(
              () -> {
                slow[0] = Thread.currentThread();
                return provider.tryLock(name, Duration.ofSeconds(20), Duration.ofSeconds(30));
              });
      assertThat(stuck.await(10, TimeUnit.SECONDS)).isTrue();

      Optional<LockHandle> second =
          provider.tryLock(name, Duration.ofMillis(50), Duration.ofSeconds(30));

      assertThat(second).isPresent();
      second.get().close();
      letGo.countDown();
      first.get(20, TimeUnit.SECONDS).ifPresent(LockHandle::close);
    } finally {
      letGo.countDown();
      threads.shutdownNow();
    }
  }

  /**
   * Keeps the storage's locks but answers a refusal without the holder's lease; counts the attempts
   * of waiting callers and makes each of them last {@code roundTrip}.
   */
  private static class Silent implements LockStorage {
    private final LockStorage storage;
    private final AtomicInteger waitingAttempts;
    private final Duration roundTrip;

    Silent(LockStorage storage, AtomicInteger waitingAttempts, Duration roundTrip) {
      this.storage = storage;
      this.waitingAttempts = waitingAttempts;
      this.roundTrip = roundTrip;
    }

    @Override
    public Attempt acquire(String name, String owner, Duration lease, boolean waiting) {
      if (waiting) {
        waitingAttempts.incrementAndGet();
        LockSupport.parkNanos(roundTrip.toNanos());
      }
      Attempt attempt = storage.acquire(name, owner, lease, waiting);
      return attempt.isTaken() ? attempt : Attempt.refused(Duration.ZERO);
    }

    @Override
    public boolean renew(String name, String owner, long fence, Duration lease) {
      return storage.renew(name, owner, fence, lease);
    }

    @Override
    public boolean isHeld(String name, String owner, long fence) {
      return storage.isHeld(name, owner, fence);
    }

    @Override
    public boolean release(String name, String owner, long fence) {
      return storage.release(name, owner, fence);
    }
  }
}
