package dev.idem.core.retry;

import java.util.Optional;

/**
 * One try at a version-checked update, run by {@link OptimisticRetry#execute(Attempt)}.
 *
 * <p>An attempt reads what it needs (including the version), decides, and issues one guarded write
 * such as {@code UPDATE account SET balance = :b, version = version + 1 WHERE id = :id AND version
 * = :seen}. It must start from a fresh read every time it is called: reusing a value read by an
 * earlier attempt would retry against a version already known to be stale.
 *
 * @param <T> the value the winning attempt produces
 */
@FunctionalInterface
public interface Attempt<T> {

  /**
   * Tries the update once.
   *
   * @return the result if the guarded write took effect; empty if it lost the race (the version had
   *     moved on), which asks for another attempt after a backoff
   * @throws RuntimeException for anything that is not a lost race, such as insufficient funds or a
   *     database failure; it is propagated to the caller at once and never retried
   */
  Optional<T> run();
}
