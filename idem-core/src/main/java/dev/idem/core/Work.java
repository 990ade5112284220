package dev.idem.core;

import org.jspecify.annotations.Nullable;

/**
 * The operation to run once per key. Whatever it throws reaches the first caller unchanged.
 *
 * @param <T> the result
 * @param <E> the checked exception it may throw ({@code RuntimeException} when none)
 */
@FunctionalInterface
public interface Work<T extends @Nullable Object, E extends Exception> {

  /** Runs the operation under a lease described by {@code context}. */
  T run(ExecutionContext context) throws E;
}
