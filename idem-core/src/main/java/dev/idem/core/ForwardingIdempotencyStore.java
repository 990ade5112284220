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
 * block, then runs for asynchronous claims too; one that wraps {@link #complete} or {@link
 * #release} and not their stages loses {@link StoreCapability#NON_BLOCKING_SETTLEMENT} the same
 * way.
 */
public abstract class ForwardingIdempotencyStore implements IdempotencyStore {

  private final IdempotencyStore delegate;
  private final boolean claimsOnlyBlocking;
  private final boolean completesOnlyBlocking;
  private final boolean releasesOnlyBlocking;

  protected ForwardingIdempotencyStore(IdempotencyStore delegate) {
    if (delegate == null) {
      throw new NullPointerException("delegate");
    }
    this.delegate = delegate;
    this.claimsOnlyBlocking = wrapsOnlyBlocking("claim", "claimAsync", ClaimRequest.class);
    this.completesOnlyBlocking =
        wrapsOnlyBlocking("complete", "completeAsync", Lease.class, Outcome.class, Duration.class);
    this.releasesOnlyBlocking = wrapsOnlyBlocking("release", "releaseAsync", Lease.class);
  }

  // Whether a subclass wraps the blocking call below the last one that wraps its stage: the stage
  // of the store below would pass that wrapping by.
  private boolean wrapsOnlyBlocking(String blocking, String staged, Class<?>... parameters) {
    Class<?> wrapped = nearestDeclaring(blocking, parameters);
    Class<?> stagedBy = nearestDeclaring(staged, parameters);
    return wrapped != stagedBy && stagedBy.isAssignableFrom(wrapped);
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
  private Class<?> nearestDeclaring(String method, Class<?>... parameters) {
    for (Class<?> type = getClass();
        type != ForwardingIdempotencyStore.class;
        type = type.getSuperclass()) {
      try {
        type.getDeclaredMethod(method, parameters);
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

  /**
   * The delegate's, unless a subclass wraps {@link #complete} and not this: then its own {@code
   * complete} runs, on the calling thread.
   */
  @Override
  public CompletableFuture<Boolean> completeAsync(
      Lease lease, Outcome outcome, Duration retention) {
    return completesOnlyBlocking
        ? IdempotencyStore.super.completeAsync(lease, outcome, retention)
        : delegate.completeAsync(lease, outcome, retention);
  }

  /** The delegate's, unless a subclass wraps {@link #release} and not this (as completeAsync). */
  @Override
  public CompletableFuture<Boolean> releaseAsync(Lease lease) {
    return releasesOnlyBlocking
        ? IdempotencyStore.super.releaseAsync(lease)
        : delegate.releaseAsync(lease);
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
    boolean settlesOnlyBlocking = completesOnlyBlocking || releasesOnlyBlocking;
    if (!claimsOnlyBlocking && !settlesOnlyBlocking) {
      return delegates;
    }
    // this store's own blocking calls run for asynchronous ones too, and they may block
    EnumSet<StoreCapability> blocking = EnumSet.noneOf(StoreCapability.class);
    blocking.addAll(delegates);
    if (claimsOnlyBlocking) {
      blocking.remove(StoreCapability.NON_BLOCKING_CLAIM);
    }
    if (settlesOnlyBlocking) {
      blocking.remove(StoreCapability.NON_BLOCKING_SETTLEMENT);
    }
    return Set.copyOf(blocking);
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
