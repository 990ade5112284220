package dev.idem.core.resume;

import dev.idem.core.ExecutionContext;
import org.jspecify.annotations.Nullable;

/**
 * The work of a resumable operation: what it does with its input, under the lease its context
 * describes. It runs again after a crash or a retryable failure, on the same input, so it keeps its
 * effects in steps ({@link ExecutionContext#step}) and makes the same steps in the same order for
 * the same input. What it throws the operation's config classifies as terminal or retryable, as for
 * any work; a checked exception reaches a caller of {@link ResumableOperation#execute} wrapped in
 * an {@link java.lang.reflect.UndeclaredThrowableException}.
 *
 * @param <I> the input
 * @param <R> the result
 */
@FunctionalInterface
public interface ResumableWork<I, R extends @Nullable Object> {

  /** Runs the operation for {@code input}. */
  R run(I input, ExecutionContext context) throws Exception;
}
