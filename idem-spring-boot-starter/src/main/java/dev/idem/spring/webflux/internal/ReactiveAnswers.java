package dev.idem.spring.webflux.internal;

import dev.idem.spring.web.IdempotencyFilter;
import dev.idem.spring.web.internal.ProblemAnswer;
import dev.idem.spring.web.internal.StoredResponse;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseCookie;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import reactor.core.publisher.Mono;

/** Writes Idem's own answers on a WebFlux response: problems and replays. */
public final class ReactiveAnswers {

  private ReactiveAnswers() {}

  /** Writes {@code problem}, with its {@code Retry-After} when it has one. */
  public static Mono<Void> problem(ServerHttpResponse response, ProblemAnswer problem) {
    byte[] body = problem.body();
    response.setStatusCode(HttpStatusCode.valueOf(problem.status()));
    HttpHeaders headers = response.getHeaders();
    headers.setContentType(MediaType.parseMediaType(ProblemAnswer.CONTENT_TYPE));
    headers.setContentLength(body.length);
    if (problem.retryAfter() != null) {
      headers.set(HttpHeaders.RETRY_AFTER, problem.retryAfter());
    }
    return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(body)));
  }

  /**
   * What {@code response} holds now, headers and cookies, to put back later: the returned action
   * takes back what was set since (the handler's answer, whose {@code Location} would name what a
   * rollback undid) and its status.
   */
  public static Runnable headersNow(ServerHttpResponse response) {
    HttpHeaders headers = new HttpHeaders();
    headers.addAll(response.getHeaders());
    MultiValueMap<String, ResponseCookie> cookies =
        new LinkedMultiValueMap<>(response.getCookies());
    return () -> {
      response.getHeaders().clear();
      response.getHeaders().addAll(headers);
      response.getCookies().clear();
      response.getCookies().addAll(cookies);
      response.setStatusCode(null);
    };
  }

  /** The answer when the store's threads refuse a call: 503, try again in a second. */
  public static ProblemAnswer overloaded(RejectedExecutionException refusal) {
    return new ProblemAnswer(
        503, "store-unavailable", "Idempotency store unavailable", refusal.getMessage(), "1");
  }

  /** Sends {@code stored} again, marked with {@code Idempotent-Replayed: true}. */
  public static Mono<Void> replay(ServerHttpResponse response, StoredResponse stored) {
    HttpHeaders headers = response.getHeaders();
    for (Map.Entry<String, String> header : stored.headers()) {
      if (stored.omittedBytes() == 0 || !header.getKey().equalsIgnoreCase("Content-Type")) {
        headers.add(header.getKey(), header.getValue());
      }
    }
    headers.set(IdempotencyFilter.REPLAYED_HEADER, "true");
    if (stored.omittedBytes() > 0) {
      return problem(response, stored.notReplayable());
    }
    response.setStatusCode(HttpStatusCode.valueOf(stored.status()));
    byte[] body = stored.body();
    headers.setContentLength(body.length);
    return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(body)));
  }
}
