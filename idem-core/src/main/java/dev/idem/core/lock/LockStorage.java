package dev.idem.core.lock;

import java.time.Duration;

/**
 * Where a lock backend keeps its locks: the few atomic steps that {@link StoredLockProvider} builds
 * every lock on. The provider owns the rest, the same for every backend: the argument checks, the
 * owner tokens, the handles, the wait loop and the waking of its own waiters, so a backend
 * implements these four steps (and {@link #listen} if it can announce releases) and nothing else.
 *
 * <p>Each step is one atomic action on the backend, by its clock. The provider passes arguments
 * that it has already checked: a name that is not blank and at most {@value
 * LockProvider#MAX_NAME_LENGTH} characters, a random owner token per acquisition and a positive
 * lease. A step that cannot reach the backend throws an unchecked exception, normally {@link
 * dev.idem.core.IdempotencyStoreException}.
 */
public interface LockStorage {

  /**
   * Takes {@code name} for {@code owner} if nobody holds it: the name is free, released, or its
   * holder's lease has ended. A taken lock gets a fence strictly greater than every earlier fence
   * of the name that the backend still remembers.
   *
   * @param waiting whether the caller will wait if the lock is held; a backend that announces
   *     releases uses it to mark the lock, so that its holder's release is announced
   * @return {@link Attempt#taken} with the fence, or {@link Attempt#refused} with what is known of
   *     the holder's lease
   */
  Attempt acquire(String name, String owner, Duration lease, boolean waiting);

  /**
   * Extends the lease of {@code name} to {@code lease} from now if {@code owner} with {@code fence}
   * still holds it and its lease has not ended.
   *
   * @return whether it was extended
   */
  boolean renew(String name, String owner, long fence, Duration lease);

  /** Whether {@code owner} with {@code fence} holds {@code name} and its lease has not ended. */
  boolean isHeld(String name, String owner, long fence);

  /**
   * Releases {@code name} if {@code owner} with {@code fence} still holds it; never anyone else's.
   *
   * @return whether this call released it
   */
  boolean release(String name, String owner, long fence);

  /**
   * Whether every release that frees a lock reaches this provider's waiters: through the provider
   * itself, when nobody else uses the storage, or through {@link #listen}. A waiter then sleeps
   * until a release or the end of the holder's lease; otherwise it tries again with a growing,
   * jittered pause. Default: false.
   */
  default boolean announcesReleases() {
    return false;
  }

  /**
   * Calls {@code wake} once, soon, when {@code name} is released by any process, as long as the
   * lock was marked by an {@link #acquire} with {@code waiting} set. It must return quickly, and
   * may be called on the backend's own thread. Returns the action that stops listening. Releases
   * through the provider that listens wake its waiters without this. Default: listens to nothing.
   */
  default Runnable listen(String name, Runnable wake) {
    return () -> {};
  }

  /**
   * The answer of one {@link #acquire}.
   *
   * @param fence the new fence if the lock was taken, else 0
   * @param holderLeft how long the holder's lease still runs, if the lock was refused and the
   *     backend knows; {@link Duration#ZERO} when it does not
   */
  record Attempt(long fence, Duration holderLeft) {

    /** The lock was taken with {@code fence}, which is positive. */
    public static Attempt taken(long fence) {
      if (fence <= 0) {
        throw new IllegalArgumentException("a fence is positive, was " + fence);
      }
      return new Attempt(fence, Duration.ZERO);
    }

    /**
     * The lock is held by someone else, whose lease runs for {@code holderLeft} more, or {@link
     * Duration#ZERO} if not known.
     */
    public static Attempt refused(Duration holderLeft) {
      return new Attempt(0, holderLeft.isNegative() ? Duration.ZERO : holderLeft);
    }

    /** Whether the lock was taken. */
    public boolean isTaken() {
      return fence > 0;
    }
  }
}
