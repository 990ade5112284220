package dev.idem.core.lock;

import java.time.Duration;
import java.util.Objects;

/** The argument checks of {@link LockProvider#tryLock} and {@link LockHandle#renew}. */
final class LockArguments {

  private LockArguments() {}

  /**
   * Checks the arguments of {@link LockProvider#tryLock}.
   *
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if one is out of range
   */
  static void check(String name, Duration wait, Duration lease) {
    checkName(name);
    Objects.requireNonNull(wait, "wait must not be null");
    if (wait.isNegative()) {
      throw new IllegalArgumentException("wait must not be negative, was " + wait);
    }
    checkLease(lease);
  }

  /** Requires a name that is not blank and at most {@value LockProvider#MAX_NAME_LENGTH} long. */
  static void checkName(String name) {
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
  static void checkLease(Duration lease) {
    Objects.requireNonNull(lease, "lease must not be null");
    if (lease.isNegative() || lease.isZero()) {
      throw new IllegalArgumentException("lease must be positive, was " + lease);
    }
  }
}
