package dev.idem.core;

import dev.idem.core.internal.LeaseWatchdog;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Lease;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * The context the engine hands the work: the key, and the lease the watchdog keeps current (or,
 * failing open, none: fence 0, never lost); whether the work discarded its outcome; and steps run
 * through the same engine under keys derived from the work's own.
 */
final class EngineContext implements ExecutionContext {

  // the context of the work running on this thread, for code the work calls that was not handed it
  private static final ThreadLocal<@Nullable ExecutionContext> CURRENT = new ThreadLocal<>();

  private final IdempotencyKey key;
  private final Fingerprint request;
  private final Idempotency engine;
  private final IdempotencyConfig config;
  private final CompletableFuture<@Nullable Void> lost = new CompletableFuture<>();
  // null when the work runs unguarded
  private volatile @Nullable Lease lease;
  private volatile boolean discarded;

  private EngineContext(
      IdempotencyKey key,
      @Nullable Lease lease,
      Fingerprint request,
      Idempotency engine,
      IdempotencyConfig config) {
    this.key = key;
    this.lease = lease;
    this.request = request;
    this.engine = engine;
    this.config = config;
  }

  /** The context of work run for {@code request} under the claimed {@code lease}. */
  static EngineContext owning(
      Lease lease, Fingerprint request, Idempotency engine, IdempotencyConfig config) {
    return new EngineContext(lease.key(), lease, request, engine, config);
  }

  /** The context of work run without a lease, since the store failed and the config fails open. */
  static EngineContext unguarded(
      IdempotencyKey key, Fingerprint request, Idempotency engine, IdempotencyConfig config) {
    return new EngineContext(key, null, request, engine, config);
  }

  /** The latest renewed lease; only for a context that owns one. */
  Lease lease() {
    return Objects.requireNonNull(lease, "work that runs unguarded holds no lease");
  }

  /**
   * The renewal of this context's lease in {@code store}, each for {@code length}, for the
   * watchdog: a renewed lease becomes the context's, and a lost one is told to the work.
   */
  LeaseWatchdog.Renewable renewal(IdempotencyStore store, Duration length) {
    return new LeaseWatchdog.Renewable() {
      @Override
      public boolean renew() {
        Optional<Lease> renewed = store.renew(lease(), length);
        renewed.ifPresent(EngineContext.this::renewed);
        return renewed.isPresent();
      }

      @Override
      public void lost() {
        EngineContext.this.lost.complete(null);
      }

      @Override
      public String describe() {
        return "lease on " + key;
      }
    };
  }

  // A lost lease stays lost: a renewal that answers after the loss changes nothing.
  private void renewed(Lease renewed) {
    if (!isLeaseLost()) {
      this.lease = renewed;
    }
  }

  /** True once the work said its outcome is not to be kept ({@link #discardOutcome()}). */
  boolean outcomeDiscarded() {
    return discarded;
  }

  @Override
  public IdempotencyKey key() {
    return key;
  }

  @Override
  public long fence() {
    Lease current = lease;
    return current == null ? 0 : current.fence();
  }

  @Override
  public boolean isLeaseLost() {
    return lost.isDone();
  }

  @Override
  public CompletionStage<@Nullable Void> leaseLost() {
    return lost.minimalCompletionStage();
  }

  @Override
  public void discardOutcome() {
    discarded = true;
  }

  @Override
  public <T extends @Nullable Object, E extends Exception> T step(
      String name, Fingerprint input, ResultCodec<T> codec, Work<T, E> work) throws E {
    IdempotencyKey step = keyOfStep(name);
    Objects.requireNonNull(input, "input");
    if (isLeaseLost()) {
      // another run may own the key now and be at this very step
      throw new LeaseLostException(
          "the lease of " + key() + " was lost before its step '" + name + "' began");
    }
    // claimed and settled as any call, its outcome stored at once, never in the caller's
    // transaction
    return engine.call(step, input).codec(codec).config(config.forSteps()).run(work);
  }

  @Override
  public IdempotencyKey keyOfStep(String name) {
    return key().step(name, request);
  }

  /** The context of the work running on this thread, or null outside of guarded work. */
  static @Nullable ExecutionContext current() {
    return CURRENT.get();
  }

  /**
   * Makes {@code context} the current one until the returned scope closes, which puts back the one
   * before it (a step runs inside its work).
   */
  static Scope enter(ExecutionContext context) {
    ExecutionContext before = CURRENT.get();
    CURRENT.set(context);
    // set back, null included, rather than removed: a removed entry is made anew at the next set
    // (a weak reference per call, which the collector then has to process)
    return () -> CURRENT.set(before);
  }

  /** Calls {@code body} with {@code context} current, for {@link ExecutionContext#callWithin}. */
  static <T extends @Nullable Object> T within(ExecutionContext context, Callable<T> body)
      throws Exception {
    if (!(context instanceof EngineContext)) {
      throw new IllegalArgumentException(context + " was not handed out by the engine");
    }
    try (Scope current = enter(context)) {
      return body.call();
    }
  }

  /** The span of {@link #enter}. */
  interface Scope extends AutoCloseable {
    @Override
    void close();
  }

  @Override
  public String toString() {
    return "the context of " + key();
  }
}
