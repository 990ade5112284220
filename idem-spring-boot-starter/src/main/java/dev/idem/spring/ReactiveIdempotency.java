package dev.idem.spring;

import dev.idem.core.Executed;
import dev.idem.core.ExecutionContext;
import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotentCall;
import dev.idem.core.IdempotentOperation;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * The engine for Reactor callers: each call is a {@code Mono} with the semantics of {@link
 * dev.idem.core.IdempotentCall#runWithStatus}, run through {@link
 * dev.idem.core.IdempotentCall#runAsync} on the starter's store threads, so no event loop waits for
 * the store or for the work.
 *
 * <ul>
 *   <li>Nothing happens before subscription; each subscription is one call.
 *   <li>The work's {@code Mono} is subscribed by the engine once the key is claimed, with the
 *       subscriber's context; a repeat gets the stored answer without it.
 *   <li>A subscriber that cancels does not stop the work: its outcome is stored for the retry.
 *   <li>What the blocking call throws (an invalid key, {@code KeyReuseException}, {@code
 *       RequestInProgressException}, the work's failure, a store failure) is the {@code Mono}'s
 *       error instead.
 * </ul>
 *
 * <pre>{@code
 * IdempotentOperation<Receipt> payments = idempotency.operation("payments", receipts);
 * Mono<Receipt> receipt = reactive.execute(payments, key, body, ctx -> gateway.charge(order));
 * }</pre>
 */
public final class ReactiveIdempotency {

  /**
   * The operation to run once per key, as a {@code Mono}. What it throws is the outcome, as the
   * {@code Mono}'s error would be.
   *
   * @param <T> the result
   */
  @FunctionalInterface
  public interface MonoWork<T extends @Nullable Object> {
    /** The work under a lease described by {@code context}; subscribed once, by the engine. */
    Mono<T> start(ExecutionContext context) throws Exception;
  }

  private final Idempotency engine;
  private final Executor storeCalls;
  private final InFlightWork inFlight;

  /**
   * @param storeCalls makes the store's calls, which may block; never an event loop
   * @param inFlight counts the work while it runs
   */
  public ReactiveIdempotency(Idempotency engine, Executor storeCalls, InFlightWork inFlight) {
    this.engine = Objects.requireNonNull(engine, "engine");
    this.storeCalls = Objects.requireNonNull(storeCalls, "storeCalls");
    this.inFlight = Objects.requireNonNull(inFlight, "inFlight");
  }

  /**
   * Runs {@code work} once for {@code key} in {@code operation}'s scope, with its codec and config,
   * and answers its value, now and on every repeat; a repeat whose {@code request} differs fails
   * with {@code KeyReuseException}. An empty {@code Mono} is a null value, replayed empty.
   */
  public <T extends @Nullable Object> Mono<T> execute(
      IdempotentOperation<T> operation, String key, String request, MonoWork<T> work) {
    return run(() -> operation.call(key, Fingerprint.of(operation.name(), request)), work)
        .mapNotNull(Executed::value);
  }

  /**
   * As {@link #execute}, with the fingerprint given, telling whether the answer was replayed. The
   * value of an empty work's {@code Executed} is null.
   */
  public <T extends @Nullable Object> Mono<Executed<T>> executeWithStatus(
      IdempotentOperation<T> operation, String key, Fingerprint fingerprint, MonoWork<T> work) {
    return run(() -> operation.call(key, fingerprint), work);
  }

  /**
   * As {@link dev.idem.core.IdempotentCall#runWithStatus}, for work given as a {@code Mono}: {@code
   * idempotency.call(key, fingerprint).codec(codec).config(config)} runs {@code work} once.
   */
  public <T extends @Nullable Object> Mono<Executed<T>> executeWithStatus(
      IdempotentCall<T> call, MonoWork<T> work) {
    Objects.requireNonNull(call, "call");
    return run(() -> call, work);
  }

  // an empty Mono completes its future with null, which the codec stores as its null (documented
  // above): the one place a null reaches a value typed T
  @SuppressWarnings("NullAway")
  private <T extends @Nullable Object> Mono<Executed<T>> run(
      Supplier<IdempotentCall<T>> call, MonoWork<T> work) {
    Objects.requireNonNull(work, "work");
    return Mono.deferContextual(
        subscriber ->
            Mono.fromFuture(
                call.get()
                    .runAsync(
                        inFlight.trackAsync(
                            context -> {
                              Mono<T> mono = work.start(context);
                              if (mono == null) {
                                throw new IllegalStateException(
                                    "the work for " + context.key() + " returned no Mono");
                              }
                              return mono.contextWrite(subscriber).toFuture();
                            }),
                        storeCalls),
                // the engine's future is not cancelled with the subscriber: the work goes on
                true));
  }
}
