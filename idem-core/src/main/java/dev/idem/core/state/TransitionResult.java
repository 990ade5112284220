package dev.idem.core.state;

import java.util.Objects;

/**
 * What became of a requested transition. Every outcome is a value, not an exception: a repeat, a
 * lost race or a missing record are normal answers that callers branch on with a {@code switch}.
 *
 * @param <S> the status type
 */
public sealed interface TransitionResult<S> {

  /**
   * Returns whether the record is now in the requested state: {@link Transitioned} or {@link
   * AlreadyThere}. A caller retrying a request treats both alike.
   */
  default boolean isSuccess() {
    return this instanceof Transitioned<?> || this instanceof AlreadyThere<?>;
  }

  /** Returns whether this call wrote the change: {@link Transitioned} only. */
  default boolean changed() {
    return this instanceof Transitioned<?>;
  }

  /** This call moved the record from {@code from} to {@code to}. */
  record Transitioned<S>(S from, S to) implements TransitionResult<S> {
    public Transitioned {
      Objects.requireNonNull(from, "from");
      Objects.requireNonNull(to, "to");
    }
  }

  /**
   * The record was already in the requested {@code state}, so nothing was written. This is how a
   * repeated request succeeds without repeating its effect; it does not say who made the move.
   */
  record AlreadyThere<S>(S state) implements TransitionResult<S> {
    public AlreadyThere {
      Objects.requireNonNull(state, "state");
    }
  }

  /**
   * The state machine does not allow {@code from} to move to {@code to}; nothing was written. When
   * the caller named only a target, {@code from} is the current state read from the store.
   */
  record Illegal<S>(S from, S to) implements TransitionResult<S> {
    public Illegal {
      Objects.requireNonNull(from, "from");
      Objects.requireNonNull(to, "to");
    }
  }

  /**
   * The record was not in {@code from} when the write ran: someone else moved it, and it is now in
   * {@code current}, which differs from {@code to}. Nothing was written. {@code current} can equal
   * {@code from} only if the record left {@code from} and came back in between, which a machine
   * without cycles rules out.
   */
  record Conflict<S>(S from, S to, S current) implements TransitionResult<S> {
    public Conflict {
      Objects.requireNonNull(from, "from");
      Objects.requireNonNull(to, "to");
      Objects.requireNonNull(current, "current");
    }
  }

  /** No record has the given id; nothing was written. */
  record NotFound<S>() implements TransitionResult<S> {}
}
