package dev.idem.core;

import dev.idem.core.internal.DuplicateWaiter;
import dev.idem.core.internal.LeaseWatchdog;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Outcome;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one entry point: runs work once per key and hands every repeat the first outcome.
 *
 * <pre>{@code
 * Idempotency idempotency = Idempotency.builder(store).build();
 * String receipt = idempotency.execute(
 *     IdempotencyKey.of(IdempotencyKey.scope("payments", "alice"), keyFromClient),
 *     Fingerprint.ofJson("POST /payments", body),
 *     ResultCodec.utf8(),
 *     ctx -> gateway.charge(order, ctx.fence()));
 * }</pre>
 *
 * <p>A normal return is stored and replayed; an exception that the config classifies as terminal is
 * stored and replayed too; any other exception releases the key so that a retry runs the work
 * again, and reaches the caller unchanged. When the store writes in the caller's transaction
 * ({@link IdempotencyStore#joinsCurrentTransaction()}) that transaction decides instead: every
 * outcome, a thrown exception included, is stored in it, and commits or vanishes with the work's
 * own writes. A duplicate that arrives while the first is running is refused or waits, per {@link
 * IdempotencyConfig#inProgressPolicy()}. When the store fails at claim the call fails closed with
 * {@link IdempotencyStoreException} unless the config says fail open. The engine is thread-safe;
 * build one per application and {@link #close()} it at shutdown.
 *
 * <p>Over 400 lines because it is the one entry point: its public calls (one call, a call that ends
 * later, a batch) and their Javadoc stand here, while the claim loop, the ownership of a lease, the
 * settlement and a batch's run live in classes of their own.
 */
public final class Idempotency implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Idempotency.class);
  // a blocking call is observed around the whole call, by run itself
  private static final Supplier<Runnable> NOT_OBSERVED = () -> () -> {};

  private final IdempotencyStore store;
  private final IdempotencyConfig defaults;
  private final IdempotencyListener listener;
  private final LeaseWatchdog watchdog;
  private final DuplicateWaiter waiter;
  private final Ownership ownership;
  private final ClaimLoop claims;

  private Idempotency(Builder b) {
    this.store = b.store;
    this.defaults = b.defaults;
    this.listener = b.listener;
    this.watchdog = new LeaseWatchdog(b.threads);
    this.waiter = new DuplicateWaiter(store);
    this.ownership = new Ownership(store, watchdog, waiter, this::report);
    this.claims = new ClaimLoop(store, waiter, this::report);
  }

  /** Starts building an engine on {@code store}. */
  public static Builder builder(IdempotencyStore store) {
    return new Builder(store);
  }

  /** The store records live in. */
  public IdempotencyStore store() {
    return store;
  }

  /** The config used when a call names none. */
  public IdempotencyConfig defaults() {
    return defaults;
  }

  /**
   * The operation {@code name} with a UTF-8 text result and this engine's defaults.
   *
   * @throws IllegalArgumentException if {@code name} is blank or holds {@code '|'}
   */
  public IdempotentOperation<String> operation(String name) {
    return operation(name, ResultCodec.utf8());
  }

  /** The operation {@code name} whose result {@code codec} keeps, with this engine's defaults. */
  public <T extends @Nullable Object> IdempotentOperation<T> operation(
      String name, ResultCodec<T> codec) {
    return operation(name, codec, defaults);
  }

  /** The operation {@code name} whose result {@code codec} keeps, with {@code config}. */
  public <T extends @Nullable Object> IdempotentOperation<T> operation(
      String name, ResultCodec<T> codec, IdempotencyConfig config) {
    return IdempotentOperation.of(this, name, codec, config);
  }

  /** Runs {@code work} once for {@code key} with the default config. */
  public <T extends @Nullable Object, E extends Exception> T execute(
      IdempotencyKey key, Fingerprint fingerprint, ResultCodec<T> codec, Work<T, E> work) throws E {
    return executeWithStatus(key, fingerprint, codec, work, defaults).value();
  }

  /** Runs {@code work} once for {@code key} under {@code config}. */
  public <T extends @Nullable Object, E extends Exception> T execute(
      IdempotencyKey key,
      Fingerprint fingerprint,
      ResultCodec<T> codec,
      Work<T, E> work,
      IdempotencyConfig config)
      throws E {
    return executeWithStatus(key, fingerprint, codec, work, config).value();
  }

  /**
   * As {@link #execute(IdempotencyKey, Fingerprint, ResultCodec, Work, IdempotencyConfig)}, and
   * tells whether the value was replayed.
   *
   * @throws RequestInProgressException a duplicate in flight (REJECT, or WAIT past its limit)
   * @throws KeyReuseException the key was used with another fingerprint
   * @throws IdempotencyStoreException the store failed at claim and the config fails closed
   * @throws LeaseLostException the work ran but another owner took its lease over
   * @throws E whatever the work throws
   */
  public <T extends @Nullable Object, E extends Exception> Executed<T> executeWithStatus(
      IdempotencyKey key,
      Fingerprint fingerprint,
      ResultCodec<T> codec,
      Work<T, E> work,
      IdempotencyConfig config)
      throws E {
    return executeWithStatus(key, fingerprint, codec, work, config, Deferral.NONE);
  }

  /**
   * As {@link #executeWithStatus(IdempotencyKey, Fingerprint, ResultCodec, Work,
   * IdempotencyConfig)}, but the outcome of work that ran is not stored at once: it is handed to
   * {@code deferral} as a {@link PendingOutcome} for the caller to complete or release later, for
   * example when the transaction around the call commits or rolls back. This is for callers whose
   * work has effects that become durable only after this method returns while the store does not
   * share their fate. Every outcome is held, a return value or any failure (the transaction, not
   * the exception, decides); a replay or a refusal calls {@code deferral} not at all.
   *
   * @param deferral receives the held outcome, on the calling thread, before this method returns or
   *     throws the work's failure; {@link Deferral#NONE} stores it at once, as the overload without
   *     it
   */
  public <T extends @Nullable Object, E extends Exception> Executed<T> executeWithStatus(
      IdempotencyKey key,
      Fingerprint fingerprint,
      ResultCodec<T> codec,
      Work<T, E> work,
      IdempotencyConfig config,
      Deferral deferral)
      throws E {
    return run(
        new ClaimRequest(key, fingerprint, config.lease(), false, config.scopeCap()),
        codec,
        work,
        config,
        true,
        deferral,
        null);
  }

  /**
   * As {@link #executeWithStatus(IdempotencyKey, Fingerprint, ResultCodec, Work,
   * IdempotencyConfig)}, for work that ends after it returns. No thread waits for the work: the
   * claim runs on {@code storeCalls}, and so does the store call that settles the outcome once the
   * work's stage ends. A duplicate under WAIT holds no thread while it waits: each claim it makes
   * is a task of its own on {@code storeCalls}. Cancelling the returned future does not stop the
   * work, whose outcome is still stored for the retry. Listeners are told of the call on a {@code
   * storeCalls} thread: {@link IdempotencyListener#onStart} spans the first claim.
   *
   * @param storeCalls runs the store's calls, which may block; never an event loop's thread. Its
   *     {@code execute} hands the task over and returns: it neither runs the task on the calling
   *     thread nor waits for it, since that thread may be the store client's, which must go on
   *     reading answers
   * @return completes with the value, or exceptionally with what the work or the engine threw (as
   *     the blocking call documents), wrapped in a {@link java.util.concurrent.CompletionException}
   *     when the claim failed
   */
  public <T extends @Nullable Object> CompletableFuture<Executed<T>> executeAsync(
      IdempotencyKey key,
      Fingerprint fingerprint,
      ResultCodec<T> codec,
      AsyncWork<T> work,
      IdempotencyConfig config,
      Executor storeCalls) {
    return runAsync(
        new ClaimRequest(key, fingerprint, config.lease(), false, config.scopeCap()),
        codec,
        work,
        config,
        true,
        storeCalls);
  }

  /** The asynchronous claim and run shared by keys and tokens. */
  <T extends @Nullable Object> CompletableFuture<Executed<T>> runAsync(
      ClaimRequest request,
      ResultCodec<T> codec,
      AsyncWork<T> work,
      IdempotencyConfig config,
      boolean replayUsed,
      Executor storeCalls) {
    Objects.requireNonNull(codec, "codec");
    Objects.requireNonNull(work, "work");
    Objects.requireNonNull(storeCalls, "storeCalls");
    // the work starts in the claim's last task, on a storeCalls thread, never on the caller's
    return claims.claim(
        request,
        config,
        storeCalls,
        () -> {
          Runnable end = start(request.key());
          return () -> ended(end, request.key());
        },
        new CompletableFuture<>(), // waits for a duplicate until the config's limit
        result ->
            begin(result, request, codec, config, replayUsed, Deferral.NONE).run(work, storeCalls));
  }

  private <T extends @Nullable Object> WorkRun<T> begin(
      @Nullable ClaimResult result,
      ClaimRequest request,
      ResultCodec<T> codec,
      IdempotencyConfig config,
      boolean replayUsed,
      Deferral deferral) {
    if (result == null) {
      return WorkRun.unguarded(
          new EngineContext(
              new UnguardedContext(request.key()), request.fingerprint(), this, config));
    }
    if (result instanceof ClaimResult.Claimed claimed) {
      Ownership.Owned<T> owned = ownership.start(claimed.lease(), codec, config, deferral);
      return WorkRun.owned(
          owned, new EngineContext(owned.context(), request.fingerprint(), this, config));
    }
    return WorkRun.answered(answer(result, request, codec, config, replayUsed));
  }

  /**
   * The blocking call shared by keys and tokens: the same claim and run as {@link #runAsync}, their
   * tasks run on the calling thread while it waits, so the claim, the work and the settlement see
   * the caller's transaction and thread context. An interrupt while a duplicate waits refuses it as
   * in progress; the thread's interrupt flag is kept.
   *
   * @param replayUsed false to refuse a completed token with {@link TokenAlreadyUsedException}
   * @param deferral receives the outcome instead of the store, or {@link Deferral#NONE}
   * @param first the claim sent ahead with others' (a batch), or null to send it now
   */
  <T extends @Nullable Object, E extends Exception> Executed<T> run(
      ClaimRequest request,
      ResultCodec<T> codec,
      Work<T, E> work,
      IdempotencyConfig config,
      boolean replayUsed,
      Deferral deferral,
      ClaimLoop.@Nullable Sent first)
      throws E {
    Objects.requireNonNull(codec, "codec");
    Objects.requireNonNull(work, "work");
    Objects.requireNonNull(deferral, "deferral");
    Runnable end = start(request.key());
    try {
      CallerRuns here = new CallerRuns();
      CompletableFuture<@Nullable Void> stop = new CompletableFuture<>();
      AsyncWork<T> now = context -> CompletableFuture.completedFuture(work.run(context));
      Function<@Nullable ClaimResult, CompletableFuture<Executed<T>>> then =
          result -> begin(result, request, codec, config, replayUsed, deferral).run(now, here);
      return here.join(
          first == null
              ? claims.claim(request, config, here, NOT_OBSERVED, stop, then)
              : claims.claim(first, request, config, here, stop, then),
          () -> stop.complete(null));
    } finally {
      ended(end, request.key());
    }
  }

  /**
   * Runs {@code work} once for each key of {@code calls}, key after key in the map's order, as
   * {@link #executeWithStatus(IdempotencyKey, Fingerprint, ResultCodec, Work, IdempotencyConfig,
   * Deferral)} runs it for one, with the fingerprint the map gives the key. The keys' first claims
   * are sent together ({@link IdempotencyStore#claimAll}: one round trip on Redis instead of one
   * per key), and, without a deferral, each outcome's store call is sent as its work ends and
   * waited for once, at the end of the batch; every other rule is the single call's, for each key
   * alone. The work finds its key in {@link ExecutionContext#key()}.
   *
   * <p>The first call that throws ends the batch, as a loop of single calls would end: the calls
   * before it keep their outcomes (stored, or held by {@code deferral}), its own outcome is settled
   * as the single call settles it, and the keys after it are given back unrun, so that a retry runs
   * them.
   *
   * @param calls the keys, in the order to run them, each with its request's fingerprint
   * @param deferral receives each held outcome, as for the single call; {@link Deferral#NONE}
   *     stores them
   * @return each call's value and whether it was replayed, in the map's order
   * @throws LeaseLostException when another owner took a key over before its value was stored
   * @throws E what the work threw, for the first call that threw
   */
  public <T extends @Nullable Object, E extends Exception> List<Executed<T>> executeEach(
      Map<IdempotencyKey, Fingerprint> calls,
      ResultCodec<T> codec,
      Work<T, E> work,
      IdempotencyConfig config,
      Deferral deferral)
      throws E {
    return new BatchRun(this, store).executeEach(calls, codec, work, config, deferral);
  }

  /**
   * Runs the step {@code key} of running work ({@link ExecutionContext#step}): claimed and settled
   * as any call under {@link IdempotencyConfig#forSteps()}, its outcome stored at once, never in
   * the caller's transaction.
   */
  <T extends @Nullable Object, E extends Exception> T step(
      IdempotencyKey key,
      Fingerprint input,
      ResultCodec<T> codec,
      Work<T, E> work,
      IdempotencyConfig config)
      throws E {
    IdempotencyConfig steps = config.forSteps();
    return run(
            new ClaimRequest(key, input, steps.lease(), false, steps.scopeCap()),
            codec,
            work,
            steps,
            true,
            Deferral.NONE,
            null)
        .value();
  }

  private static void ended(Runnable end, IdempotencyKey key) {
    try {
      end.run();
    } catch (RuntimeException e) {
      log.warn("idempotency listener failed at the end of {}", key, e);
    }
  }

  private Runnable start(IdempotencyKey key) {
    try {
      return listener.onStart(key);
    } catch (RuntimeException e) {
      log.warn("idempotency listener failed at the start of {}", key, e);
      return () -> {};
    }
  }

  /**
   * The answer to a claim that did not take the key: the stored value, or the refusal.
   *
   * @param replayUsed false to refuse a completed token with {@link TokenAlreadyUsedException}
   */
  private <T extends @Nullable Object> Executed<T> answer(
      ClaimResult result,
      ClaimRequest request,
      ResultCodec<T> codec,
      IdempotencyConfig config,
      boolean replayUsed) {
    IdempotencyKey key = request.key();
    if (result instanceof ClaimResult.Completed completed) {
      if (!replayUsed) {
        report(key, ExecutionOutcome.IN_PROGRESS);
        throw new TokenAlreadyUsedException("token " + key.value() + " was already used");
      }
      report(key, ExecutionOutcome.REPLAYED);
      Outcome outcome = Objects.requireNonNull(completed.record().outcome());
      if (outcome.kind() == Outcome.Kind.FAILURE) {
        throw codec.decodeFailure(outcome.payload());
      }
      if (outcome.kind() == Outcome.Kind.UNSTORED) {
        throw new OutcomeNotReplayableException(
            key, new String(outcome.payload(), java.nio.charset.StandardCharsets.UTF_8));
      }
      return new Executed<>(codec.decode(outcome.payload()), true);
    }
    if (result instanceof ClaimResult.Mismatch) {
      report(key, ExecutionOutcome.MISMATCH);
      throw key.isStep() ? new StepInputChangedException(key) : new KeyReuseException(key);
    }
    if (result instanceof ClaimResult.UnknownToken) {
      report(key, ExecutionOutcome.UNKNOWN_TOKEN);
      throw new UnknownTokenException("token " + key.value() + " is unknown or has expired");
    }
    throw claims.inProgress(request, config);
  }

  private void report(IdempotencyKey key, ExecutionOutcome outcome) {
    try {
      listener.onOutcome(key, outcome);
    } catch (RuntimeException e) {
      log.warn("idempotency listener failed", e);
    }
  }

  /** Stops the lease watchdog. Work still running keeps its lease until it ends. */
  @Override
  public void close() {
    watchdog.close();
  }

  /** Builds an {@link Idempotency}. */
  public static final class Builder {
    private final IdempotencyStore store;
    private IdempotencyConfig defaults = IdempotencyConfig.ofDefaults();
    private IdempotencyListener listener = IdempotencyListener.NONE;
    private ThreadFactory threads = LeaseWatchdog.PLATFORM_THREADS;

    private Builder(IdempotencyStore store) {
      this.store = Objects.requireNonNull(store, "store");
    }

    /** The config used by calls that name none. */
    public Builder defaults(IdempotencyConfig defaults) {
      this.defaults = Objects.requireNonNull(defaults, "defaults");
      return this;
    }

    /**
     * Told when every call begins and how it ended (metrics, traces, logs); {@link
     * IdempotencyListener#all} joins several.
     */
    public Builder listener(IdempotencyListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * Makes the engine's own threads: the lease watchdog's, which keep the leases of running work.
     * Daemon platform threads by default; a factory of virtual threads suits an application that
     * runs on them (the starter passes one when {@code spring.threads.virtual.enabled} is on).
     */
    public Builder threads(ThreadFactory threads) {
      this.threads = Objects.requireNonNull(threads, "threads");
      return this;
    }

    public Idempotency build() {
      return new Idempotency(this);
    }
  }
}
