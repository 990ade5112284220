package dev.idem.core;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * A store that passes every call to another one: the base of decorators (timers, logging, fault
 * injection). A subclass overrides the calls it wraps. What the delegate is ({@link
 * #capabilities()}, {@link #joinsCurrentTransaction()}, {@link #onChange}) is forwarded by final
 * methods, so that no decorator can silently take a record out of the caller's transaction or stop
 * waiters from being woken. The one exception: a subclass that wraps {@link #claim} and not {@link
 * #claimAsync} loses {@link StoreCapability#NON_BLOCKING_CLAIM}, since its own claim, which may
 * block, then runs for asynchronous claims too.
 */
public abstract class ForwardingIdempotencyStore implements IdempotencyStore {

  private final IdempotencyStore delegate;
  private final boolean claimsOnlyBlocking;

  protected ForwardingIdempotencyStore(IdempotencyStore delegate) {
    if (delegate == null) {
      throw new NullPointerException("delegate");
    }
    this.delegate = delegate;
    Class<?> claim = nearestDeclaring("claim");
    Class<?> claimAsync = nearestDeclaring("claimAsync");
    // a claim wrapped below the last claimAsync wrapped would be passed by
    this.claimsOnlyBlocking = claim != claimAsync && claimAsync.isAssignableFrom(claim);
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

  // The class nearest to this one's that declares the method, up to this base class.
  private Class<?> nearestDeclaring(String method) {
    for (Class<?> type = getClass();
        type != ForwardingIdempotencyStore.class;
        type = type.getSuperclass()) {
      try {
        type.getDeclaredMethod(method, ClaimRequest.class);
        return type;
      } catch (NoSuchMethodException e) {
        // not here: look further up
      }
    }
    return ForwardingIdempotencyStore.class;
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
    Set<StoreCapability> delegates = delegate.capabilities();
    if (claimsOnlyBlocking && delegates.contains(StoreCapability.NON_BLOCKING_CLAIM)) {
      // this store's own claim runs for asynchronous claims too, and it may block
      EnumSet<StoreCapability> blocking = EnumSet.copyOf(delegates);
      blocking.remove(StoreCapability.NON_BLOCKING_CLAIM);
      return Set.copyOf(blocking);
    }
    return delegates;
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
