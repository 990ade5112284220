package dev.idem.spring.client;

import dev.idem.spring.client.RetryRules.RetryableAnswer;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import org.springframework.web.reactive.function.client.WebClientRequestException;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * The client side of a retry for a {@code WebClient} ({@code
 * WebClient.builder().filter(IdempotentExchangeRetries.ofDefaults())}), by the same rules as {@link
 * IdempotentRetries}: each POST or PATCH call gets one {@code Idempotency-Key} (the caller's, one
 * derived from the step's when the call is made inside a step of guarded work on the subscribing
 * thread, or a fresh one) and keeps it across its retries; a refusal (429; a 409 or a 503 with
 * {@code Retry-After}, a 409 so being a request still running) is retried on any server, and a
 * request whose outcome is unknown (an I/O failure, {@link WebClientRequestException}: reset, timed
 * out, a reply lost; a 502, 504 or other 5xx; a 500 only where {@code retryServerErrors} says) only
 * on a server known to honour the key, waiting as {@code Retry-After} says (capped) or with
 * jittered backoff, within the same budget of attempts and time; any other 4xx, 422 included, is
 * the caller's at once, and when the budget runs out the caller gets the last answer or the last
 * failure. Other methods pass through.
 *
 * <p>It never blocks: the waits are Reactor delays, on Reactor's parallel scheduler. The body of an
 * answer that is retried is released before the next attempt. Each attempt writes the request body
 * again, so a retried call needs a body that can be written twice ({@code bodyValue}, not a
 * one-shot stream). Thread-safe.
 */
public final class IdempotentExchangeRetries implements ExchangeFilterFunction {

  private final RetryRules rules;

  private IdempotentExchangeRetries(RetryRules rules) {
    this.rules = rules;
  }

  /** The defaults of {@link IdempotentRetries#ofDefaults()}. */
  public static IdempotentExchangeRetries ofDefaults() {
    return from(IdempotentRetries.ofDefaults());
  }

  /**
   * The rules and budget of {@code retries} (made by {@link IdempotentRetries#builder()}), for a
   * {@code WebClient}: {@code from(IdempotentRetries.builder().maxAttempts(6).build())}.
   */
  public static IdempotentExchangeRetries from(IdempotentRetries retries) {
    return new IdempotentExchangeRetries(Objects.requireNonNull(retries, "retries").rules());
  }

  @Override
  public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
    if (!rules.guards(request.method())) {
      return next.exchange(request);
    }
    ClientRequest keyed =
        ClientRequest.from(request)
            .headers(headers -> rules.key(headers, request.method(), request.url()))
            .build();
    return Mono.defer(
        () -> {
          AtomicReference<@Nullable Duration> retryAfter = new AtomicReference<>();
          AtomicReference<@Nullable ClientResponse> previous = new AtomicReference<>();
          RetryPolicy policy =
              rules.policy(keyed.url(), retryAfter, WebClientRequestException.class);
          return release(previous)
              .then(Mono.defer(() -> next.exchange(keyed)))
              .flatMap(response -> answered(keyed.url(), response, retryAfter, previous))
              .retryWhen(runs(policy))
              .onErrorResume(
                  RetryableAnswer.class, exhausted -> Mono.justOrEmpty(previous.getAndSet(null)))
              .onErrorResume(failure -> release(previous).then(Mono.error(failure)))
              .doOnCancel(() -> release(previous).subscribe());
        });
  }

  private Mono<ClientResponse> answered(
      URI uri,
      ClientResponse response,
      AtomicReference<@Nullable Duration> retryAfter,
      AtomicReference<@Nullable ClientResponse> previous) {
    RetryableAnswer retry =
        rules.retryable(
            uri, response.statusCode().value(), response.headers().asHttpHeaders(), retryAfter);
    if (retry == null) {
      return Mono.just(response);
    }
    previous.set(response);
    return Mono.error(retry);
  }

  private static Mono<Void> release(AtomicReference<@Nullable ClientResponse> previous) {
    return Mono.defer(
        () -> {
          ClientResponse gone = previous.getAndSet(null);
          return gone == null ? Mono.empty() : gone.releaseBody();
        });
  }

  /**
   * Runs {@code policy} as {@code RetryTemplate} does, without its sleep: a failure the policy
   * retries waits for the next backoff, unless the backoff has stopped or the wait would end past
   * the policy's timeout (counted from the first attempt); then the failure goes on, unchanged.
   */
  private static Retry runs(RetryPolicy policy) {
    return Retry.from(
        signals -> {
          long start = System.nanoTime();
          long timeout = policy.getTimeout().toMillis();
          BackOffExecution backOff = policy.getBackOff().start();
          return signals.concatMap(
              signal -> {
                Throwable failure = signal.failure();
                if (!policy.shouldRetry(failure)) {
                  return Mono.error(failure);
                }
                long wait = backOff.nextBackOff();
                long elapsed = (System.nanoTime() - start) / 1_000_000;
                if (wait == BackOffExecution.STOP || timeout > 0 && elapsed + wait >= timeout) {
                  return Mono.error(failure);
                }
                return Mono.delay(Duration.ofMillis(wait));
              });
        });
  }
}
