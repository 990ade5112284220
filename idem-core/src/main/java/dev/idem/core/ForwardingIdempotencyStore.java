package dev.idem.core;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * A store that passes every call to another one: the base of decorators (timers, logging, fault
 * injection). A subclass overrides the calls it wraps. What the delegate is ({@link
 * #capabilities()}, {@link #joinsCurrentTransaction()}, {@link #onChange}) is forwarded by final
 * methods, so that no decorator can silently take a record out of the caller's transaction or stop
 * waiters from being woken. A decorator of {@link #claim}, {@link #complete} or {@link #release}
 * wraps the stage: what it adds after the delegate's answer runs where the answer arrives, which is
 * the store client's thread for a store that answers later, and must not block.
 */
public abstract class ForwardingIdempotencyStore implements IdempotencyStore {

  private final IdempotencyStore delegate;

  protected ForwardingIdempotencyStore(IdempotencyStore delegate) {
    if (delegate == null) {
      throw new NullPointerException("delegate");
    }
    this.delegate = delegate;
  }

  /** The store this one passes its calls to. */
  public final IdempotencyStore delegate() {
    return delegate;
  }

  @Override
  public CompletableFuture<ClaimResult> claim(ClaimRequest request) {
    return delegate.claim(request);
  }

  @Override
  public CompletableFuture<Boolean> complete(Lease lease, Outcome outcome, Duration retention) {
    return delegate.complete(lease, outcome, retention);
  }

  @Override
  public CompletableFuture<Boolean> release(Lease lease) {
    return delegate.release(lease);
  }

  @Override
  public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
    return delegate.renew(lease, leaseDuration);
  }

  @Override
  public Optional<IdempotencyRecord> find(IdempotencyKey key) {
    return delegate.find(key);
  }

  @Override
  public boolean evict(IdempotencyKey key, RecordState state, long fence) {
    return delegate.evict(key, state, fence);
  }

  @Override
  public boolean issue(IdempotencyKey key, Duration ttl, int scopeCap) {
    return delegate.issue(key, ttl, scopeCap);
  }

  @Override
  public int purgeExpired(int limit) {
    return delegate.purgeExpired(limit);
  }

  @Override
  public final Set<StoreCapability> capabilities() {
    return delegate.capabilities();
  }

  @Override
  public final boolean joinsCurrentTransaction() {
    return delegate.joinsCurrentTransaction();
  }

  @Override
  public final Subscription onChange(IdempotencyKey key, Runnable listener) {
    return delegate.onChange(key, listener);
  }
}
