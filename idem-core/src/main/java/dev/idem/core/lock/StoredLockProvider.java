package dev.idem.core.lock;

import dev.idem.core.internal.Durations;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The {@link LockProvider} of every backend: argument checks, owner tokens, handles and the wait
 * loop, over a {@link LockStorage} that keeps the locks.
 *
 * <p>A waiter tries, and if the lock is held sleeps until one of: a release through this provider,
 * a release announced by the storage ({@link LockStorage#listen}), the end of the holder's lease
 * when the storage told it, or the end of its own wait. Over a storage that {@linkplain
 * LockStorage#announcesReleases() announces every release} it sleeps at most {@link #MAX_POLL} in
 * case an announcement was lost. Otherwise it cannot know when someone elsewhere releases the lock,
 * so it backs off with full jitter: a random pause of up to 5 ms, then up to 10, 20, ... 200 ms.
 *
 * <p>Of the threads of one provider waiting for one name, only one at a time tries the storage; the
 * others queue behind it in the order they came, each for what is left of its wait, and one whose
 * wait runs out in the queue tries once before it gives up. So a release costs the storage one
 * attempt from this process, not one from every waiter, of which all but one would be refused. A
 * call that does not wait ({@code wait} zero) tries at once.
 */
public final class StoredLockProvider implements LockProvider {

  /** The longest a waiter sleeps between two attempts over a storage that announces releases. */
  public static final Duration MAX_POLL = Duration.ofSeconds(1);

  private static final long FIRST_PAUSE = TimeUnit.MILLISECONDS.toNanos(5);
  private static final long LONGEST_PAUSE = TimeUnit.MILLISECONDS.toNanos(200);
  private static final long MAX_POLL_NANOS = MAX_POLL.toNanos();
  private static final long HOLDER_GRACE = TimeUnit.MILLISECONDS.toNanos(1);

  private final LockStorage storage;
  private final LockWakeups wakeups = new LockWakeups();

  /** A provider over {@code storage}. */
  public StoredLockProvider(LockStorage storage) {
    this.storage = Objects.requireNonNull(storage, "storage must not be null");
  }

  @Override
  public Optional<LockHandle> tryLock(String name, Duration wait, Duration lease)
      throws InterruptedException {
    LockArguments.check(name, wait, lease);
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    long waitNanos = Durations.toNanosSaturated(wait);
    if (waitNanos == 0) {
      return take(name, lease);
    }
    long start = System.nanoTime();
    LockWakeups.Signal released = wakeups.join(name);
    try {
      if (!released.takeTurn(waitNanos)) {
        // The waiter whose turn it is may be asleep in its backoff while the lock is free
        // already (released elsewhere, or its lease over): a wait never ends without a try.
        return take(name, lease);
      }
      try {
        return waitInTurn(name, lease, released, start, waitNanos);
      } finally {
        released.endTurn();
      }
    } finally {
      wakeups.leave(name);
    }
  }

  // The wait loop of the one waiter of this provider whose turn it is to try the storage.
  private Optional<LockHandle> waitInTurn(
      String name, Duration lease, LockWakeups.Signal released, long start, long waitNanos)
      throws InterruptedException {
    long pause = FIRST_PAUSE;
    while (true) {
      long seen = released.version();
      // Listen before trying, so that a release between the attempt and the sleep still wakes.
      Runnable stopListening = storage.listen(name, released::fire);
      try {
        String owner = newOwner();
        LockStorage.Attempt attempt = storage.acquire(name, owner, lease, true);
        if (attempt.isTaken()) {
          return Optional.of(new StoredLock(this, name, owner, attempt.fence()));
        }
        long left = waitNanos - (System.nanoTime() - start);
        if (left <= 0) {
          return Optional.empty();
        }
        boolean woken = released.await(seen, sleep(attempt.holderLeft(), pause, left));
        pause = woken ? FIRST_PAUSE : Math.min(pause * 2, LONGEST_PAUSE);
      } finally {
        stopListening.run();
      }
      if (Thread.interrupted()) {
        throw new InterruptedException();
      }
    }
  }

  LockStorage storage() {
    return storage;
  }

  /** Wakes this provider's waiters for {@code name}; its handles call it when they release. */
  void released(String name) {
    wakeups.wake(name);
  }

  private Optional<LockHandle> take(String name, Duration lease) {
    String owner = newOwner();
    LockStorage.Attempt attempt = storage.acquire(name, owner, lease, false);
    return attempt.isTaken()
        ? Optional.of(new StoredLock(this, name, owner, attempt.fence()))
        : Optional.empty();
  }

  private long sleep(Duration holderLeft, long pause, long left) {
    long holder =
        holderLeft.isZero()
            ? Long.MAX_VALUE
            : Durations.toNanosSaturated(holderLeft) + HOLDER_GRACE;
    if (storage.announcesReleases() && holder != Long.MAX_VALUE) {
      return Math.min(left, Math.min(holder, MAX_POLL_NANOS));
    }
    long jittered = ThreadLocalRandom.current().nextLong(Math.min(pause, left) + 1);
    return Math.min(jittered, holder);
  }

  // Owners tell acquisitions apart and are never shown to anyone; they need not be unguessable.
  private static String newOwner() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    return new UUID(random.nextLong(), random.nextLong()).toString();
  }
}
