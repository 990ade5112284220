package dev.idem.core.lock;

import java.time.Duration;
import java.util.Optional;

/**
 * Grants named, leased, non-reentrant locks. This is the one method a lock backend implements.
 *
 * <p><b>A lock is an optimisation, never the guarantee.</b> A holder can lose its lock without
 * noticing: a garbage-collection pause, a stalled network call or a clock jump can outlast the
 * lease, and another process then takes the lock while the first still believes it holds it (Martin
 * Kleppmann, "How to do distributed locking", 2016). Use a lock to keep concurrent callers from
 * doing the same work twice, but let the write that matters decide: a unique index, or a guarded
 * write that only succeeds if the handle's {@link LockHandle#fence() fencing token} is greater than
 * the last one the resource accepted.
 *
 * <p>Contract for every implementation:
 *
 * <ul>
 *   <li>At most one unexpired handle exists per name at any moment.
 *   <li>A lock is held until its lease runs out or its handle is closed, whichever comes first.
 *       Expiry needs no action by anyone.
 *   <li>Locks are not reentrant and not bound to threads: a second {@code tryLock} on a held name
 *       fails even from the holding thread, and any thread may close a handle.
 *   <li>Waiters are woken when the holder releases the lock; they do not poll in a tight loop.
 *       There is no fairness guarantee among waiters.
 *   <li>Implementations are thread-safe.
 * </ul>
 */
public interface LockProvider {

  /** The longest lock name, in characters, that every provider accepts. */
  int MAX_NAME_LENGTH = 255;

  /**
   * Takes the lock called {@code name}, waiting up to {@code wait} for its holder to release it or
   * for the holder's lease to run out.
   *
   * @param name the lock's name: not blank, at most {@value #MAX_NAME_LENGTH} characters
   * @param wait how long to wait for a held lock; {@link Duration#ZERO} makes a single attempt
   * @param lease how long the lock stays held unless it is closed or renewed first; positive
   * @return a handle if the lock was taken, or empty if it was still held when {@code wait} ran out
   * @throws IllegalArgumentException if {@code name} is blank or too long, {@code lease} is not
   *     positive or {@code wait} is negative
   * @throws NullPointerException if an argument is null
   * @throws InterruptedException if the calling thread is interrupted before or while waiting; no
   *     lock is then held
   */
  Optional<LockHandle> tryLock(String name, Duration wait, Duration lease)
      throws InterruptedException;
}
