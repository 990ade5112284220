package dev.idem.core.state;

import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The transitions a status may make, declared once and never changed.
 *
 * <p>Built with {@link #builder(Class)}: {@code StateMachine.builder(Status.class).allow(PENDING,
 * PROCESSING).allow(PROCESSING, SUCCESS, FAILED).build()}. Anything not declared is illegal. A
 * state may not be declared to move to itself: a request to reach the state a record is already in
 * is a repeat, answered by {@link TransitionResult.AlreadyThere} without a write, so a self-edge
 * would have nothing to mean. Immutable and thread-safe.
 *
 * @param <S> the status enum
 */
public final class StateMachine<S extends Enum<S>> {

  private final Class<S> type;
  private final Map<S, Set<S>> next;

  private StateMachine(Class<S> type, Map<S, EnumSet<S>> declared) {
    this.type = type;
    Map<S, Set<S>> copy = new EnumMap<>(type);
    for (S state : type.getEnumConstants()) {
      EnumSet<S> targets = declared.getOrDefault(state, EnumSet.noneOf(type));
      copy.put(state, Collections.unmodifiableSet(EnumSet.copyOf(targets)));
    }
    this.next = Collections.unmodifiableMap(copy);
  }

  /** Returns an empty builder for the states of {@code type}. */
  public static <S extends Enum<S>> Builder<S> builder(Class<S> type) {
    return new Builder<>(type);
  }

  /** Returns whether moving from {@code from} to {@code to} was declared. */
  public boolean allows(S from, S to) {
    Objects.requireNonNull(to, "to");
    return next(from).contains(to);
  }

  /** Returns the states {@code from} may move to, as an unmodifiable set; empty if terminal. */
  public Set<S> next(S from) {
    return next.getOrDefault(Objects.requireNonNull(from, "from"), Set.of());
  }

  /** Returns whether {@code state} has no declared way out. */
  public boolean isTerminal(S state) {
    return next(state).isEmpty();
  }

  /** Returns the status enum this machine is declared over. */
  public Class<S> type() {
    return type;
  }

  /**
   * Binds this machine to a store, giving the operations that apply transitions to stored records.
   */
  public <I> StateTransitions<I, S> on(StateStore<I, S> store) {
    return new StateTransitions<>(this, store);
  }

  @Override
  public String toString() {
    return "StateMachine" + next;
  }

  /**
   * Collects the allowed transitions of a {@link StateMachine}. Each call adds to what was declared
   * before; declaring a transition twice is harmless. Not thread-safe.
   *
   * @param <S> the status enum
   */
  public static final class Builder<S extends Enum<S>> {

    private final Class<S> type;
    private final Map<S, EnumSet<S>> declared;

    private Builder(Class<S> type) {
      this.type = Objects.requireNonNull(type, "type");
      this.declared = new EnumMap<>(type);
    }

    /**
     * Allows {@code from} to move to {@code to} and to each of {@code more}.
     *
     * @throws NullPointerException if any state is null
     * @throws IllegalArgumentException if a target equals {@code from}
     */
    @SafeVarargs
    public final Builder<S> allow(S from, S to, S... more) {
      Objects.requireNonNull(from, "from");
      EnumSet<S> targets = EnumSet.of(Objects.requireNonNull(to, "to"));
      for (S target : Objects.requireNonNull(more, "more")) {
        targets.add(Objects.requireNonNull(target, "more must not contain null"));
      }
      if (targets.contains(from)) {
        throw new IllegalArgumentException(
            from + " cannot be allowed to move to itself; a repeat is reported as AlreadyThere");
      }
      declared.computeIfAbsent(from, state -> EnumSet.noneOf(type)).addAll(targets);
      return this;
    }

    /**
     * Returns the machine declared so far; later calls to this builder do not affect it.
     *
     * @throws IllegalArgumentException if no transition was declared
     */
    public StateMachine<S> build() {
      if (declared.isEmpty()) {
        throw new IllegalArgumentException("no transitions declared for " + type.getSimpleName());
      }
      return new StateMachine<>(type, declared);
    }
  }
}
