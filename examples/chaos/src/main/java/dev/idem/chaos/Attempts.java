package dev.idem.chaos;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.LongSupplier;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.http.client.support.HttpRequestWrapper;

/**
 * The tool's side of each attempt, under Idem's retries: it sends the attempt to an instance that
 * is up, like a load balancer (one that gave no answer is passed over for a second), and counts it
 * in the {@link Ledger} and the {@link Timeline}: a connection error, a 409 {@code in-progress}, a
 * 504 {@code gateway-timeout}, a 503 {@code wallet-busy} or another 5xx. A call carries its {@link
 * Call} as the request attribute {@link #CALL}; a request without one passes through.
 */
final class Attempts implements ClientHttpRequestInterceptor {

  /** The request attribute that holds the call's {@link Call}. */
  static final String CALL = Call.class.getName();

  /** How long an instance that gave no answer is passed over. */
  private static final long DOWN_NANOS = Duration.ofSeconds(1).toNanos();

  /** One operation's attempts: where the next one goes, and the last answer. */
  static final class Call {
    private final Operation operation;
    private volatile int target;
    private volatile Answer last;

    Call(Operation operation, int target) {
      this.operation = operation;
      this.target = target;
    }

    /** The answer to the last attempt, or null when none answered. */
    Answer last() {
      return last;
    }
  }

  private final List<URI> endpoints;
  private final Ledger ledger;
  private final Timeline timeline;
  private final LongSupplier clock;
  private final long[] downUntil;

  Attempts(List<URI> endpoints, Ledger ledger, Timeline timeline, LongSupplier clock) {
    this.endpoints = List.copyOf(endpoints);
    this.ledger = ledger;
    this.timeline = timeline;
    this.clock = clock;
    this.downUntil = new long[endpoints.size()];
  }

  @Override
  public ClientHttpResponse intercept(
      HttpRequest request, byte[] body, ClientHttpRequestExecution execution) throws IOException {
    if (!(request.getAttributes().get(CALL) instanceof Call call)) {
      return execution.execute(request, body);
    }
    int target = up(call.target);
    URI uri = endpoints.get(target).resolve(request.getURI().getRawPath());
    HttpRequest to =
        new HttpRequestWrapper(request) {
          @Override
          public URI getURI() {
            return uri;
          }
        };
    long start = clock.getAsLong();
    long t0 = System.nanoTime();
    ledger.request();
    ClientHttpResponse response;
    String text;
    try {
      response = execution.execute(to, body);
      text = new String(response.getBody().readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      timeline.record(clock.getAsLong(), (System.nanoTime() - t0) / 1000);
      ledger.connectionError();
      markDown(target);
      call.target = (target + 1) % endpoints.size();
      throw e;
    }
    timeline.record(clock.getAsLong(), (System.nanoTime() - t0) / 1000);
    Answer answer = new Answer(response.getStatusCode().value(), text, start, clock.getAsLong());
    count(call.operation, answer);
    call.target = target;
    call.last = answer;
    return response;
  }

  private void count(Operation operation, Answer answer) {
    if (inProgress(answer)) {
      ledger.inProgress();
    } else if (answer.status() == 504 && answer.body().contains("gateway-timeout")) {
      ledger.gatewayTimeout();
    } else if (answer.status() == 503 && answer.body().contains("wallet-busy")) {
      ledger.walletBusy();
    } else if (answer.status() >= 500) {
      ledger.serverError(operation, answer);
    }
  }

  /** A 409 {@code in-progress}: another request with the key was still running. */
  static boolean inProgress(Answer answer) {
    return answer.status() == 409 && answer.body().contains("urn:idem:problem:in-progress");
  }

  /**
   * The first instance from {@code preferred} on that has not failed to answer in the last second,
   * like a load balancer taking a dead backend out for a while; {@code preferred} if all have.
   */
  int up(int preferred) {
    long now = System.nanoTime();
    synchronized (downUntil) {
      for (int i = 0; i < downUntil.length; i++) {
        int candidate = (preferred + i) % downUntil.length;
        if (downUntil[candidate] - now <= 0) {
          return candidate;
        }
      }
    }
    return preferred;
  }

  private void markDown(int instance) {
    synchronized (downUntil) {
      downUntil[instance] = System.nanoTime() + DOWN_NANOS;
    }
  }
}
