package dev.idem.core.state;

import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * A {@link StateStore} held in a {@link ConcurrentHashMap}, for tests and single-process use.
 * Thread-safe; {@link #compareAndSet} is atomic per record. Nothing is persisted.
 *
 * @param <I> the record identifier; needs proper {@code equals} and {@code hashCode}
 * @param <S> the status type, compared with {@code equals}
 */
public final class InMemoryStateStore<I, S> implements StateStore<I, S> {

  private final ConcurrentMap<I, S> states = new ConcurrentHashMap<>();

  /**
   * Creates the record {@code id} in {@code state}, or overwrites its state unconditionally. Meant
   * for seeding: it bypasses every transition rule.
   */
  public void put(I id, S state) {
    states.put(Objects.requireNonNull(id, "id"), Objects.requireNonNull(state, "state"));
  }

  @Override
  public Optional<S> find(I id) {
    return Optional.ofNullable(states.get(Objects.requireNonNull(id, "id")));
  }

  @Override
  public boolean compareAndSet(I id, S from, S to) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(to, "to");
    return states.replace(id, from, to);
  }
}
