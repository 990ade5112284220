package dev.idem.core.state;

import java.util.Optional;

/**
 * Where the current status of each record lives. Implementations only read and write; every rule
 * about which transitions are legal lives in {@link StateMachine} and {@link StateTransitions}.
 *
 * <p>Both methods may be called from any thread at any time, so implementations must be
 * thread-safe. Neither method creates or deletes a record.
 *
 * @param <I> the record identifier
 * @param <S> the status type, compared with {@code equals}
 */
public interface StateStore<I, S> {

  /**
   * Reads the current status of a record.
   *
   * @return the status, or empty if no record has this id
   */
  Optional<S> find(I id);

  /**
   * Moves a record from {@code from} to {@code to} if, and only if, it is in {@code from} at the
   * moment of the write. The check and the write are one atomic step; in SQL this is a single
   * guarded statement, with no read before it:
   *
   * <pre>{@code
   * UPDATE orders SET status = :to WHERE id = :id AND status = :from
   * }</pre>
   *
   * <p>and the method returns whether exactly one row was updated.
   *
   * @return {@code true} if this call made the change; {@code false} if the record is missing or
   *     was in any other status, in which case nothing was written
   */
  boolean compareAndSet(I id, S from, S to);
}
