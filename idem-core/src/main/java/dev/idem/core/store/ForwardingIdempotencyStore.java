package dev.idem.core.store;

import dev.idem.core.IdempotencyKey;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * A store that passes every call to another one: the base of decorators (timers, logging, fault
 * injection). A subclass overrides the calls it wraps. What the delegate is ({@link
 * #capabilities()}, {@link #joinsCurrentTransaction()}, {@link #onChange}) is forwarded by final
 * methods, so that no decorator can silently take a record out of the caller's transaction or stop
 * waiters from being woken; a decorator keeps that promise by calling the delegate on the thread
 * that called it (a store in join mode writes in that thread's transaction).
 *
 * <p>A decorator of {@link #claim}, {@link #complete} or {@link #release} chains onto the
 * delegate's stage ({@code super.claim(request).whenComplete(...)}) and never waits for it: waiting
 * would hold a store thread while Redis answers. What it chains runs on whichever thread ends the
 * delegate's stage: the calling thread when it has ended already (a blocking store); for Redis,
 * Lettuce's I/O or timer thread, or the common pool. There it must not block, and it sees neither
 * the caller's thread-local context nor its MDC; only the call itself runs on the caller's thread.
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
