package dev.idem.core;

import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.IdempotencyRecord;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordState;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The in-memory store behind a store of a test's own, which overrides the calls it watches or
 * changes and says what capabilities it claims to have.
 */
abstract class MemoryBackedStore implements IdempotencyStore {

  final InMemoryIdempotencyStore memory = new InMemoryIdempotencyStore();

  @Override
  public CompletableFuture<ClaimResult> claim(ClaimRequest request) {
    return memory.claim(request);
  }

  @Override
  public CompletableFuture<Boolean> complete(Lease lease, Outcome outcome, Duration retention) {
    return memory.complete(lease, outcome, retention);
  }

  @Override
  public CompletableFuture<Boolean> release(Lease lease) {
    return memory.release(lease);
  }

  @Override
  public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
    return memory.renew(lease, leaseDuration);
  }

  @Override
  public Optional<IdempotencyRecord> find(IdempotencyKey key) {
    return memory.find(key);
  }

  @Override
  public boolean evict(IdempotencyKey key, RecordState state, long fence) {
    return memory.evict(key, state, fence);
  }

  @Override
  public boolean issue(IdempotencyKey key, Duration ttl, int scopeCap) {
    return memory.issue(key, ttl, scopeCap);
  }

  @Override
  public int purgeExpired(int limit) {
    return memory.purgeExpired(limit);
  }

  @Override
  public Subscription onChange(IdempotencyKey key, Runnable listener) {
    return memory.onChange(key, listener);
  }
}
