package dev.idem.core;

/**
 * The operation to run once per key. Whatever it throws reaches the first caller unchanged.
 *
 * @param <T> the result
 * @param <E> the checked exception it may throw ({@code RuntimeException} when none)
 */
@FunctionalInterface
public interface Work<T, E extends Exception> {

  /** Runs the operation under a lease described by {@code context}. */
  T run(ExecutionContext context) throws E;
}
