package dev.idem.core.lock.internal;

import dev.idem.core.lock.LockProvider;
import java.time.Duration;
import java.util.Objects;

/**
 * Argument checks shared by every {@link LockProvider} and lock handle, so that all backends reject
 * the same input with the same message. Not part of the public API.
 */
public final class LockArguments {

  private LockArguments() {}

  /**
   * Checks the arguments of {@link LockProvider#tryLock}.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if one is out of range
   */
  public static void check(String name, Duration wait, Duration lease) {
    checkName(name);
    Objects.requireNonNull(wait, "wait must not be null");
    if (wait.isNegative()) {
      throw new IllegalArgumentException("wait must not be negative, was " + wait);
    }
    checkLease(lease);
  }

  /** Requires a name that is not blank and at most {@value LockProvider#MAX_NAME_LENGTH} long. */
  public static void checkName(String name) {
    Objects.requireNonNull(name, "lock name must not be null");
    if (name.isBlank()) {
      throw new IllegalArgumentException("lock name must not be blank");
    }
    if (name.length() > LockProvider.MAX_NAME_LENGTH) {
      throw new IllegalArgumentException(
          "lock name must be at most "
              + LockProvider.MAX_NAME_LENGTH
              + " characters, was "
              + name.length());
    }
  }

  /** Requires a positive lease. */
  public static void checkLease(Duration lease) {
    Objects.requireNonNull(lease, "lease must not be null");
    if (lease.isNegative() || lease.isZero()) {
      throw new IllegalArgumentException("lease must be positive, was " + lease);
    }
  }
}
