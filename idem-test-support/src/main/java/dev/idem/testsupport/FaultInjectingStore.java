package dev.idem.testsupport;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.ForwardingIdempotencyStore;
import dev.idem.core.store.IdempotencyRecord;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordState;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real store with failures injected in front of it: each operation can be made to throw {@link
 * IdempotencyStoreException} a given number of times, as an unreachable server would, without
 * touching the record. Everything else goes to the real store.
 */
public final class FaultInjectingStore extends ForwardingIdempotencyStore {

  /** The operations that can be made to fail. */
  public enum Operation {
    CLAIM,
    COMPLETE,
    RELEASE,
    RENEW,
    FIND,
    EVICT,
    ISSUE,
    PURGE
  }

  private final Map<Operation, AtomicInteger> failures = new EnumMap<>(Operation.class);

  public FaultInjectingStore(IdempotencyStore delegate) {
    super(delegate);
    for (Operation op : Operation.values()) {
      failures.put(op, new AtomicInteger());
    }
  }

  /**
   * The next {@code times} calls of {@code op} fail; {@link Integer#MAX_VALUE} for "until healed".
   */
  public FaultInjectingStore failNext(Operation op, int times) {
    Objects.requireNonNull(failures.get(op)).set(times);
    return this;
  }

  /** Stops every injected failure. */
  public void heal() {
    failures.values().forEach(f -> f.set(0));
  }

  private void maybeFail(Operation op) {
    if (Objects.requireNonNull(failures.get(op))
            .getAndUpdate(n -> n > 0 && n != Integer.MAX_VALUE ? n - 1 : n)
        > 0) {
      throw new IdempotencyStoreException("injected fault: " + op + " failed");
    }
  }

  /** Fails with the injected fault as a failed stage; else the real store's own stage. */
  @Override
  public CompletableFuture<ClaimResult> claim(ClaimRequest request) {
    return failing(Operation.CLAIM, () -> super.claim(request));
  }

  @Override
  public CompletableFuture<Boolean> complete(Lease lease, Outcome outcome, Duration retention) {
    return failing(Operation.COMPLETE, () -> super.complete(lease, outcome, retention));
  }

  @Override
  public CompletableFuture<Boolean> release(Lease lease) {
    return failing(Operation.RELEASE, () -> super.release(lease));
  }

  private <V> CompletableFuture<V> failing(
      Operation op, java.util.function.Supplier<CompletableFuture<V>> call) {
    try {
      maybeFail(op);
    } catch (IdempotencyStoreException e) {
      return CompletableFuture.failedFuture(e);
    }
    return call.get();
  }

  @Override
  public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
    maybeFail(Operation.RENEW);
    return super.renew(lease, leaseDuration);
  }

  @Override
  public Optional<IdempotencyRecord> find(IdempotencyKey key) {
    maybeFail(Operation.FIND);
    return super.find(key);
  }

  @Override
  public boolean evict(IdempotencyKey key, RecordState state, long fence) {
    maybeFail(Operation.EVICT);
    return super.evict(key, state, fence);
  }

  @Override
  public boolean issue(IdempotencyKey key, Duration ttl, int scopeCap) {
    maybeFail(Operation.ISSUE);
    return super.issue(key, ttl, scopeCap);
  }

  @Override
  public int purgeExpired(int limit) {
    maybeFail(Operation.PURGE);
    return super.purgeExpired(limit);
  }
}
