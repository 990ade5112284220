package dev.idem.core.lock;

import java.time.Duration;

/**
 * One acquisition of a lock, returned by {@link LockProvider#tryLock}. Every method checks the
 * owner token, so a handle whose lease ran out and whose lock was taken by someone else can no
 * longer affect that lock. A handle is not tied to the thread that acquired it: any thread may
 * renew or close it.
 */
public interface LockHandle extends AutoCloseable {

  /** The name the lock was taken under. */
  String name();

  /**
   * The fencing token of this acquisition. It is strictly greater than the token of every earlier
   * acquisition of the same name, for as long as the provider keeps that name's counter. A provider
   * may forget the counter of a name that has been idle for a while (so that unused names do not
   * accumulate); it documents how long. Pass this token along with every write the lock protects
   * and have the resource refuse tokens lower than the highest it has seen.
   */
  long fence();

  /**
   * A random token that identifies this acquisition, different for every acquisition. It is never
   * derived from a thread, a host or a process.
   */
  String owner();

  /**
   * Extends the lease to {@code lease} from now, if this handle still holds the lock.
   *
   * @param lease the new lease, measured from now; positive
   * @return {@code true} if the lock is still held by this handle and now runs for {@code lease};
   *     {@code false} if it was closed, its lease had already run out, or someone else holds it. A
   *     {@code false} is final: the handle never holds the lock again.
   * @throws IllegalArgumentException if {@code lease} is not positive
   */
  boolean renew(Duration lease);

  /**
   * Whether this handle holds the lock right now: it was not closed, its lease has not run out and
   * nobody else took the lock. The answer can be stale by the time the caller acts on it, which is
   * why the fencing token exists.
   */
  boolean isHeld();

  /**
   * Releases the lock if this handle still holds it and wakes the callers waiting for it. Closing a
   * handle that was already closed, whose lease ran out or whose lock was taken by someone else
   * does nothing and throws nothing; in particular it never releases another owner's lock. Safe to
   * call from any thread and more than once.
   */
  @Override
  void close();
}
