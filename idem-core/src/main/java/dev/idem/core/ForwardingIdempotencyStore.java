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
 * waiters from being woken.
 */
public abstract class ForwardingIdempotencyStore implements IdempotencyStore {

  private final IdempotencyStore delegate;
  private final boolean claimsOnlyBlocking;

  protected ForwardingIdempotencyStore(IdempotencyStore delegate) {
    if (delegate == null) {
      throw new NullPointerException("delegate");
    }
    this.delegate = delegate;
    this.claimsOnlyBlocking = declaredBelow("claim") && !declaredBelow("claimAsync");
  }

  /** The store this one passes its calls to. */
  public final IdempotencyStore delegate() {
    return delegate;
  }

  @Override
  public ClaimResult claim(ClaimRequest request) {
    return delegate.claim(request);
  }

  /**
   * The delegate's, unless a subclass wraps {@link #claim} and not this: then its {@code claim}
   * runs, on the calling thread, so that no claim passes a decorator by.
   */
  @Override
  public CompletableFuture<ClaimResult> claimAsync(ClaimRequest request) {
    return claimsOnlyBlocking
        ? IdempotencyStore.super.claimAsync(request)
        : delegate.claimAsync(request);
  }

  private boolean declaredBelow(String method) {
    for (Class<?> type = getClass();
        type != ForwardingIdempotencyStore.class;
        type = type.getSuperclass()) {
      try {
        type.getDeclaredMethod(method, ClaimRequest.class);
        return true;
      } catch (NoSuchMethodException e) {
        // not here: look further up
      }
    }
    return false;
  }

  @Override
  public boolean complete(Lease lease, Outcome outcome, Duration retention) {
    return delegate.complete(lease, outcome, retention);
  }

  @Override
  public boolean release(Lease lease) {
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
