package dev.idem.core;

import dev.idem.core.internal.DuplicateWaiter;
import dev.idem.core.internal.LeaseWatchdog;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import java.util.function.BiConsumer;
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
 * String receipt = idempotency
 *     .call(
 *         IdempotencyKey.of(IdempotencyKey.scope("payments", "alice"), keyFromClient),
 *         Fingerprint.ofJson("POST /payments", body))
 *     .run(ctx -> gateway.charge(order, ctx.fence()));
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

  /**
   * The call that runs work once for {@code key}: UTF-8 text and this engine's defaults unless the
   * call says otherwise ({@link IdempotentCall#codec}, {@link IdempotentCall#config}).
   *
   * @param fingerprint what makes the request this one: a repeat with another fingerprint is
   *     refused with {@link KeyReuseException}; {@link Fingerprint#NONE} compares nothing
   */
  public IdempotentCall<String> call(IdempotencyKey key, Fingerprint fingerprint) {
    return new IdempotentCall<>(
        this, key, fingerprint, null, ResultCodec.utf8(), defaults, Deferral.NONE);
  }

  /** {@link IdempotentCall#runAsync}, for keys and tokens alike. */
  <T extends @Nullable Object> CompletableFuture<Executed<T>> runAsync(
      IdempotentCall<T> call, AsyncWork<T> work, Executor storeCalls) {
    Objects.requireNonNull(work, "work");
    Objects.requireNonNull(storeCalls, "storeCalls");
    if (call.deferral().holds() && !call.deferral().holdsFromAnyThread()) {
      throw new IllegalStateException(
          "work that ends later hands its outcome over on another thread, after the call returned;"
              + " this deferral is bound to the calling thread ("
              + call
              + ")");
    }
    ClaimRequest request = call.request();
    // the work starts in the claim's last task, on a storeCalls thread, never on the caller's
    return claims.claim(
        request,
        call.config(),
        storeCalls,
        () -> {
          Runnable end = start(request.key());
          return () -> ended(end, request.key());
        },
        new CompletableFuture<>(), // waits for a duplicate until the config's limit
        result -> begin(result, call).run(work, storeCalls));
  }

  private <T extends @Nullable Object> WorkRun<T> begin(
      @Nullable ClaimResult result, IdempotentCall<T> call) {
    if (result == null) {
      return WorkRun.unguarded(
          EngineContext.unguarded(call.key(), call.fingerprint(), this, call.config()));
    }
    if (result instanceof ClaimResult.Claimed claimed) {
      EngineContext context =
          EngineContext.owning(claimed.lease(), call.fingerprint(), this, call.config());
      return WorkRun.owned(ownership.start(context, call.codec(), call.config(), call.deferral()));
    }
    return WorkRun.answered(answer(result, call));
  }

  /**
   * {@link IdempotentCall#runWithStatus}, for keys and tokens alike: the same claim and run as
   * {@link #runAsync}, their tasks run on the calling thread while it waits, so the claim, the work
   * and the settlement see the caller's transaction and thread context.
   *
   * @param first the claim sent ahead with others' (a batch), or null to send it now
   */
  <T extends @Nullable Object, E extends Exception> Executed<T> run(
      IdempotentCall<T> call, Work<T, E> work, ClaimLoop.@Nullable Sent first) throws E {
    Objects.requireNonNull(work, "work");
    ClaimRequest request = call.request();
    Runnable end = start(request.key());
    try {
      CallerRuns here = new CallerRuns();
      CompletableFuture<@Nullable Void> stop = new CompletableFuture<>();
      AsyncWork<T> now = context -> CompletableFuture.completedFuture(work.run(context));
      Function<@Nullable ClaimResult, CompletableFuture<Executed<T>>> then =
          result -> begin(result, call).run(now, here);
      IdempotencyConfig config = call.config();
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
   * {@link IdempotentCall#runWithStatus} runs it for one, with the fingerprint the map gives the
   * key. The keys' first claims are sent together ({@link IdempotencyStore#claimAll}: one round
   * trip on Redis instead of one per key), and, without a deferral, each outcome's store call is
   * sent as its work ends and waited for once, at the end of the batch; every other rule is the
   * single call's, for each key alone. The work finds its key in {@link ExecutionContext#key()}.
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
    return new ArrayList<>(
        new BatchRun(this, store).executeEach(calls, codec, work, config, deferral, null).values());
  }

  /**
   * As {@link #executeEach(Map, ResultCodec, Work, IdempotencyConfig, Deferral)}, except that a
   * call that throws does not end the batch: what it threw (the work's failure, a refusal such as
   * {@link RequestInProgressException}, a store's failure, or a {@link LeaseLostException} for a
   * value that could not be stored) goes to {@code failed} with its key, its outcome is settled as
   * the single call settles it, and the next call runs. An {@link Error} still ends the batch.
   *
   * @param failed takes each call that threw, on the calling thread, before this returns (a call
   *     whose value could not be stored after it returned is also in the answer)
   * @return the value of each call that returned, by key, in the map's order
   */
  public <T extends @Nullable Object> Map<IdempotencyKey, Executed<T>> executeEach(
      Map<IdempotencyKey, Fingerprint> calls,
      ResultCodec<T> codec,
      Work<T, ? extends Exception> work,
      IdempotencyConfig config,
      Deferral deferral,
      BiConsumer<IdempotencyKey, Exception> failed) {
    Objects.requireNonNull(failed, "failed");
    try {
      return new BatchRun(this, store).executeEach(calls, codec, work, config, deferral, failed);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      // every checked failure went to failed: none reaches here
      throw new IllegalStateException("a batch that goes on past failures threw", e);
    }
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

  /** The answer to a claim that did not take the key: the stored value, or the refusal. */
  private <T extends @Nullable Object> Executed<T> answer(
      ClaimResult result, IdempotentCall<T> call) {
    IdempotencyKey key = call.key();
    if (result instanceof ClaimResult.Completed completed) {
      if (!call.replaysUsed()) {
        report(key, ExecutionOutcome.IN_PROGRESS);
        throw new TokenAlreadyUsedException("token " + key.value() + " was already used");
      }
      report(key, ExecutionOutcome.REPLAYED);
      Outcome outcome = Objects.requireNonNull(completed.record().outcome());
      // the stored bytes may be shared (the in-memory store, a replay cache): the codec gets a
      // copy, so that nothing it hands the caller changes a later answer
      if (outcome.kind() == Outcome.Kind.FAILURE) {
        throw call.codec().decodeFailure(outcome.payload().clone());
      }
      if (outcome.kind() == Outcome.Kind.UNSTORED) {
        throw new OutcomeNotReplayableException(
            key, new String(outcome.payload(), java.nio.charset.StandardCharsets.UTF_8));
      }
      return new Executed<>(call.codec().decode(outcome.payload().clone()), true);
    }
    if (result instanceof ClaimResult.Mismatch) {
      report(key, ExecutionOutcome.MISMATCH);
      throw key.isStep() ? new StepInputChangedException(key) : new KeyReuseException(key);
    }
    if (result instanceof ClaimResult.UnknownToken) {
      report(key, ExecutionOutcome.UNKNOWN_TOKEN);
      throw new UnknownTokenException("token " + key.value() + " is unknown or has expired");
    }
    throw claims.inProgress(call.request(), call.config());
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
