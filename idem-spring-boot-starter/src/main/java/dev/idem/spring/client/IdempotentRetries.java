package dev.idem.spring.client;

import dev.idem.spring.client.RetryRules.RetryableAnswer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.core.retry.RetryException;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * The client side of a retry, for a {@code RestClient} ({@code
 * RestClient.builder().requestInterceptor(IdempotentRetries.ofDefaults())}): each POST or PATCH
 * call gets one {@code Idempotency-Key} (the caller's, when the request has one already, such as an
 * order form's; else, made inside a step of guarded work, one derived from the step's key and the
 * request's method and path, the same on every run of that work; else a fresh random one) and keeps
 * it across its retries, so the server runs the effect once and every attempt gets its first
 * answer.
 *
 * <p>It retries what a retry can mend, and never what could run the effect twice. A refusal says
 * the request did not run, so it is retried on any server: 429 (too many at once), a 503 with
 * {@code Retry-After} and a 409 with it (the first attempt is still running; a 409 without it is a
 * conflict of the business, the caller's at once; a 503 without it may come from a proxy after its
 * upstream took the request, so only a server that honours the key is asked again). A request whose
 * outcome is unknown (an I/O failure after it was sent: a read timeout, a reset, a lost reply; a
 * 502, 504 or other 5xx) is sent again only to a server known to honour the key: one the
 * application listed ({@link Builder#keysHonouredBy}) or one that has marked an answer {@code
 * Idempotent-Replayed}; a server that ignores the key would run it again. A 500 (the handler
 * failed, maybe after its effect committed) is not retried unless {@link Builder#retryServerErrors}
 * says so, and then only to such a server. Waits are as the server's {@code Retry-After} says (up
 * to {@link Builder#maxRetryAfter}) or else with exponential, jittered backoff, within a bounded
 * number of attempts and total time (Spring Framework's {@link RetryTemplate}). Any other 4xx is
 * answered at once: a 422 (the key was used with another body) is the caller's to see. The last
 * answer, or the last I/O failure, is what the caller gets when the budget runs out. Other methods
 * pass through untouched. Thread-safe.
 *
 * <p>An HTTP interface client over a {@code RestClientAdapter} of such a {@code RestClient} retries
 * the same way; a {@code WebClient} takes {@link IdempotentExchangeRetries}, built from this.
 */
public final class IdempotentRetries implements ClientHttpRequestInterceptor {

  /** The header that carries the key. */
  public static final String HEADER = "Idempotency-Key";

  private final RetryRules rules;

  private IdempotentRetries(RetryRules rules) {
    this.rules = rules;
  }

  /** Four attempts, from 100 ms doubling to 2 s, Retry-After up to 10 s, 30 s in all. */
  public static IdempotentRetries ofDefaults() {
    return builder().build();
  }

  /** A builder starting from the defaults of {@link #ofDefaults()}. */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public ClientHttpResponse intercept(
      HttpRequest request, byte[] body, ClientHttpRequestExecution execution) throws IOException {
    if (!rules.guards(request.getMethod())) {
      return execution.execute(request, body);
    }
    rules.key(request.getHeaders(), request.getMethod(), request.getURI());
    AtomicReference<@Nullable Duration> retryAfter = new AtomicReference<>();
    AtomicReference<@Nullable ClientHttpResponse> previous = new AtomicReference<>();
    RetryTemplate retries =
        new RetryTemplate(rules.policy(request.getURI(), retryAfter, IOException.class));
    try {
      return retries.execute(
          () -> {
            ClientHttpResponse gone = previous.getAndSet(null);
            if (gone != null) {
              gone.close();
            }
            ClientHttpResponse response = execution.execute(request, body);
            RetryableAnswer retry =
                rules.retryable(
                    request.getURI(),
                    response.getStatusCode().value(),
                    response.getHeaders(),
                    retryAfter);
            if (retry == null) {
              return response;
            }
            previous.set(response);
            throw retry;
          });
    } catch (RetryException e) {
      ClientHttpResponse last = previous.get();
      if (e.getLastException() instanceof RetryableAnswer && last != null) {
        return last;
      }
      Throwable failure = e.getLastException();
      if (failure instanceof IOException io) {
        throw io;
      }
      if (failure instanceof RuntimeException unchanged) {
        throw unchanged; // not one to retry: the caller sees it as the execution threw it
      }
      throw new UncheckedIOException(new IOException("request failed", failure));
    }
  }

  /** The rules this interceptor runs, for a client of another kind to run the same. */
  RetryRules rules() {
    return rules;
  }

  /** The budget and the keys; see {@link #ofDefaults()} for the defaults. */
  public static final class Builder {
    private int maxAttempts = 4;
    private Duration firstDelay = Duration.ofMillis(100);
    private Duration maxDelay = Duration.ofSeconds(2);
    private Duration maxRetryAfter = Duration.ofSeconds(10);
    private Duration timeout = Duration.ofSeconds(30);
    private Supplier<String> keys = () -> UUID.randomUUID().toString();
    private final Set<String> honouring = new LinkedHashSet<>();
    private boolean retryServerErrors;

    private Builder() {}

    /**
     * Servers known to honour {@code Idempotency-Key} ({@code https://payments.example.com}, a port
     * where it is not the scheme's): a request whose outcome is unknown is sent to them again.
     * Others are learned when they mark an answer {@code Idempotent-Replayed}.
     *
     * @throws IllegalArgumentException for a value that is not an absolute http(s) URI
     */
    public Builder keysHonouredBy(String... origins) {
      for (String origin : origins) {
        URI uri;
        try {
          uri = URI.create(origin.strip());
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("not a server's URI: " + origin, e);
        }
        if (uri.getHost() == null
            || !("http".equalsIgnoreCase(uri.getScheme())
                || "https".equalsIgnoreCase(uri.getScheme()))) {
          throw new IllegalArgumentException(
              "a server that honours the key is named by an http(s) URI with a host, was "
                  + origin);
        }
        honouring.add(RetryRules.origin(uri));
      }
      return this;
    }

    /**
     * True to retry a 500 from a server that honours the key (false by default: a 500 may come
     * after the effect committed, and only such a server answers the retry with it).
     */
    public Builder retryServerErrors(boolean retry) {
      this.retryServerErrors = retry;
      return this;
    }

    /** Attempts in all, the first included (at least 1). */
    public Builder maxAttempts(int maxAttempts) {
      if (maxAttempts < 1) {
        throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
      }
      this.maxAttempts = maxAttempts;
      return this;
    }

    /** The wait before the first retry; each later one doubles it, up to {@code maxDelay}. */
    public Builder delay(Duration firstDelay, Duration maxDelay) {
      this.firstDelay = positive(firstDelay, "firstDelay");
      this.maxDelay = positive(maxDelay, "maxDelay");
      return this;
    }

    /** The longest {@code Retry-After} honoured; a longer one is cut to it. */
    public Builder maxRetryAfter(Duration maxRetryAfter) {
      this.maxRetryAfter = positive(maxRetryAfter, "maxRetryAfter");
      return this;
    }

    /** The time all attempts of one call may take together, waits included. */
    public Builder timeout(Duration timeout) {
      this.timeout = positive(timeout, "timeout");
      return this;
    }

    /** Makes the key of a call that brings none. */
    public Builder keys(Supplier<String> keys) {
      this.keys = Objects.requireNonNull(keys, "keys");
      return this;
    }

    /** The interceptor, with the rules set so far. */
    public IdempotentRetries build() {
      return new IdempotentRetries(
          new RetryRules(
              maxAttempts,
              firstDelay,
              maxDelay,
              maxRetryAfter,
              timeout,
              keys,
              honouring,
              retryServerErrors));
    }

    private static Duration positive(Duration d, String name) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(name + " must be positive, was " + d);
      }
      return d;
    }
  }
}
