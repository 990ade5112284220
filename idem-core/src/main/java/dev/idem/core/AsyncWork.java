package dev.idem.core;

import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * The operation to run once per key when it ends after it returns: a future, or a reactive
 * publisher turned into one. Its stage's value or failure is the outcome, settled as {@link Work}'s
 * return value or exception would be.
 *
 * @param <T> the result
 */
@FunctionalInterface
public interface AsyncWork<T extends @Nullable Object> {

  /**
   * Starts the operation under a lease described by {@code context}. What it throws is the outcome,
   * as a failed stage would be.
   */
  CompletionStage<T> start(ExecutionContext context) throws Exception;
}
