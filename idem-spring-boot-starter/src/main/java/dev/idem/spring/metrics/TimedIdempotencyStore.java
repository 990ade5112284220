package dev.idem.spring.metrics;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.ForwardingIdempotencyStore;
import dev.idem.core.store.IdempotencyRecord;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordState;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Times every call to a store as {@code idem.store.calls{call, outcome}}: call is claim, complete,
 * release, renew, find, issue, purge or evict; outcome is ok, or error when the call failed. A
 * claim that finds the key taken is ok: the store answered. With an observation registry, each call
 * is also a {@value #OBSERVATION} observation (low-cardinality key {@code call}), the child of
 * whatever observation is open on the thread, so a trace shows a request's claim and completion; a
 * claim, completion or release made where no observation is open (a store thread of an asynchronous
 * call) is timed only. Everything else is passed to the store unchanged.
 *
 * <p>The registries are asked for at the first call (they may be created after the store); without
 * them, calls are neither timed nor observed.
 */
public class TimedIdempotencyStore extends ForwardingIdempotencyStore {

  private static final Logger log = LoggerFactory.getLogger(TimedIdempotencyStore.class);

  /** The meter's name. */
  public static final String METER = "idem.store.calls";

  /** The observation's name. */
  public static final String OBSERVATION = "idem.store.call";

  private final Supplier<MeterRegistry> registrySupplier;
  private final Map<String, Timer> timers = new ConcurrentHashMap<>();
  private final Supplier<ObservationRegistry> observationsSupplier;
  private volatile @Nullable Optional<MeterRegistry> registry;
  private volatile @Nullable ObservationRegistry observations;

  TimedIdempotencyStore(
      IdempotencyStore delegate,
      Supplier<MeterRegistry> registry,
      Supplier<ObservationRegistry> observations) {
    super(delegate);
    this.registrySupplier = registry;
    this.observationsSupplier = observations;
  }

  /**
   * Wraps {@code store}; its capabilities, transaction joining and change notices pass through.
   *
   * @param registry supplies the registry at the first call; may supply null
   */
  public static TimedIdempotencyStore wrap(
      IdempotencyStore store, Supplier<MeterRegistry> registry) {
    return new TimedIdempotencyStore(store, registry, () -> null);
  }

  /**
   * Wraps {@code store}, timing and observing its calls.
   *
   * @param registry supplies the meter registry at the first call; may supply null
   * @param observations supplies the observation registry at the first call; may supply null
   */
  public static TimedIdempotencyStore wrap(
      IdempotencyStore store,
      Supplier<MeterRegistry> registry,
      Supplier<ObservationRegistry> observations) {
    return new TimedIdempotencyStore(store, registry, observations);
  }

  /**
   * Timed from its sending to its answer. Observed too when an observation is open on the calling
   * thread (a request's), as its child: open while the store sends (a blocking store answers
   * within), stopped when the answer comes, wherever it comes; a call from a store thread with no
   * observation of its own is only timed, rather than start a trace of its own.
   */
  @Override
  public CompletableFuture<ClaimResult> claim(ClaimRequest request) {
    return timedStage("claim", () -> super.claim(request));
  }

  /**
   * Passes the claims on together, timed and observed as one call ({@code claim-all}); each claim's
   * stage ends with its own answer, after the meter.
   */
  @Override
  public List<CompletableFuture<ClaimResult>> claimAll(List<ClaimRequest> requests) {
    return timedAll("claim-all", () -> delegate().claimAll(requests));
  }

  /** Passes the completions on together, timed and observed as one call ({@code complete-all}). */
  @Override
  public List<CompletableFuture<Boolean>> completeAll(List<Completion> completions) {
    return timedAll("complete-all", () -> delegate().completeAll(completions));
  }

  private <T> List<CompletableFuture<T>> timedAll(
      String call, Supplier<List<CompletableFuture<T>>> body) {
    List<CompletableFuture<T>> answers = new ArrayList<>();
    CompletableFuture<?> all =
        timedStage(
            call,
            () -> {
              answers.addAll(body.get());
              return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new));
            });
    return answers.stream()
        .map(answer -> all.handle((x, f) -> answer).thenCompose(a -> a))
        .toList();
  }

  /** Timed and observed as {@link #claim} is. */
  @Override
  public CompletableFuture<Boolean> complete(Lease lease, Outcome outcome, Duration retention) {
    return timedStage("complete", () -> super.complete(lease, outcome, retention));
  }

  /** Timed and observed as {@link #claim} is. */
  @Override
  public CompletableFuture<Boolean> release(Lease lease) {
    return timedStage("release", () -> super.release(lease));
  }

  // The returned stage ends after the meter and the observation: a caller that goes on when it
  // ends finds them recorded. The registries are looked up here, never on the client's thread.
  private <T> CompletableFuture<T> timedStage(String call, Supplier<CompletableFuture<T>> body) {
    ObservationRegistry found = observations();
    Observation observation =
        found.getCurrentObservation() == null ? Observation.NOOP : observation(call, found).start();
    meters();
    long start = System.nanoTime();
    CompletableFuture<T> sent;
    try (Observation.Scope scope = observation.openScope()) {
      sent = body.get();
    } catch (RuntimeException | Error e) {
      ended(call, observation, e, System.nanoTime() - start);
      throw e;
    }
    return sent.whenComplete(
        (result, failure) -> ended(call, observation, failure, System.nanoTime() - start));
  }

  private void ended(String call, Observation observation, Throwable failure, long nanos) {
    try {
      record(call, failure == null ? "ok" : "error", nanos);
    } catch (RuntimeException e) {
      // a meter that cannot be recorded must not undo what the store did
      log.warn("could not time a store's {}", call, e);
    } finally {
      if (failure != null) {
        observation.error(
            failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause()
                : failure);
      }
      observation.stop();
    }
  }

  @Override
  public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
    return time("renew", () -> super.renew(lease, leaseDuration));
  }

  @Override
  public Optional<IdempotencyRecord> find(IdempotencyKey key) {
    return time("find", () -> super.find(key));
  }

  @Override
  public boolean issue(IdempotencyKey key, Duration ttl, int scopeCap) {
    return time("issue", () -> super.issue(key, ttl, scopeCap));
  }

  @Override
  public int purgeExpired(int limit) {
    return time("purge", () -> super.purgeExpired(limit));
  }

  @Override
  public boolean evict(IdempotencyKey key, RecordState state, long fence) {
    return time("evict", () -> super.evict(key, state, fence));
  }

  @Override
  public String toString() {
    return "timed " + delegate();
  }

  private <T> T time(String call, Supplier<T> body) {
    return observation(call, observations()).observe(() -> timed(call, body));
  }

  private ObservationRegistry observations() {
    ObservationRegistry found = observations;
    if (found == null) {
      ObservationRegistry supplied = observationsSupplier.get();
      found = supplied == null ? ObservationRegistry.NOOP : supplied;
      observations = found;
    }
    return found;
  }

  // Not started; a no-op one without an observation registry.
  private static Observation observation(String call, ObservationRegistry registry) {
    return Observation.createNotStarted(OBSERVATION, registry)
        .contextualName("idem store " + call)
        .lowCardinalityKeyValue("call", call);
  }

  private <T> T timed(String call, Supplier<T> body) {
    long start = System.nanoTime();
    boolean ok = false;
    try {
      T result = body.get();
      ok = true;
      return result;
    } finally {
      record(call, ok ? "ok" : "error", System.nanoTime() - start);
    }
  }

  private Optional<MeterRegistry> meters() {
    Optional<MeterRegistry> found = registry;
    if (found == null) {
      found = Optional.ofNullable(registrySupplier.get());
      registry = found;
    }
    return found;
  }

  private void record(String call, String outcome, long nanos) {
    Optional<MeterRegistry> found = meters();
    if (found.isEmpty()) {
      return;
    }
    MeterRegistry meters = found.get();
    timers
        .computeIfAbsent(
            call + '\n' + outcome,
            k ->
                Timer.builder(METER)
                    .description("Calls to the idempotency store, by call and how they ended")
                    .tag("call", call)
                    .tag("outcome", outcome)
                    .register(meters))
        .record(nanos, TimeUnit.NANOSECONDS);
  }
}
