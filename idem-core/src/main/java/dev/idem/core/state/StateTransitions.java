package dev.idem.core.state;

import java.util.Objects;
import java.util.Optional;

/**
 * Applies a {@link StateMachine}'s transitions to records in a {@link StateStore}. Obtained from
 * {@link StateMachine#on(StateStore)}. Each transition makes at most one guarded write, so
 * concurrent callers cannot both win, and a caller that repeats a request gets {@link
 * TransitionResult.AlreadyThere} instead of a second effect. Thread-safe if the store is.
 *
 * @param <I> the record identifier
 * @param <S> the status enum
 */
public final class StateTransitions<I, S extends Enum<S>> {

  private final StateMachine<S> machine;
  private final StateStore<I, S> store;

  StateTransitions(StateMachine<S> machine, StateStore<I, S> store) {
    this.machine = Objects.requireNonNull(machine, "machine");
    this.store = Objects.requireNonNull(store, "store");
  }

  /**
   * Moves record {@code id} from {@code from} to {@code to}, for a caller that knows which state it
   * expects. An undeclared transition is refused without touching the store. Otherwise one guarded
   * write runs; if it does not apply, the record is read once to explain why.
   *
   * @return {@code Illegal} if the machine does not allow the move; {@code Transitioned} if this
   *     call made it; else, by the state read afterwards, {@code NotFound}, {@code AlreadyThere}
   *     (it is in {@code to}) or {@code Conflict}
   */
  public TransitionResult<S> transition(I id, S from, S to) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(to, "to");
    if (!machine.allows(from, to)) {
      return new TransitionResult.Illegal<>(from, to);
    }
    if (store.compareAndSet(id, from, to)) {
      return new TransitionResult.Transitioned<>(from, to);
    }
    return explainMiss(id, from, to);
  }

  /**
   * Moves record {@code id} to {@code to} from whatever state it is in now, if the machine allows
   * that. The current state is read, checked, and then written with one guarded write from it.
   *
   * <p>A rival that moves the record between the read and the write makes the write miss; this is
   * not retried, because the caller's request was judged against a state that no longer holds.
   *
   * @return {@code NotFound} if there is no record; {@code AlreadyThere} if it is in {@code to};
   *     {@code Illegal} (with the current state as {@code from}) if the move is not allowed; {@code
   *     Transitioned} if this call made it; else, after a lost race, as the state read then says:
   *     {@code NotFound}, {@code AlreadyThere} or {@code Conflict}
   */
  public TransitionResult<S> transition(I id, S to) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(to, "to");
    Optional<S> found = store.find(id);
    if (found.isEmpty()) {
      return new TransitionResult.NotFound<>();
    }
    S current = found.get();
    if (current == to) {
      return new TransitionResult.AlreadyThere<>(to);
    }
    if (!machine.allows(current, to)) {
      return new TransitionResult.Illegal<>(current, to);
    }
    if (store.compareAndSet(id, current, to)) {
      return new TransitionResult.Transitioned<>(current, to);
    }
    return explainMiss(id, current, to);
  }

  /** Returns the machine whose transitions this applies. */
  public StateMachine<S> machine() {
    return machine;
  }

  private TransitionResult<S> explainMiss(I id, S from, S to) {
    Optional<S> now = store.find(id);
    if (now.isEmpty()) {
      return new TransitionResult.NotFound<>();
    }
    S current = now.get();
    if (current == to) {
      return new TransitionResult.AlreadyThere<>(to);
    }
    return new TransitionResult.Conflict<>(from, to, current);
  }
}
