package dev.idem.spring.webflux;

import dev.idem.core.IdempotencyException;
import dev.idem.core.TokenService;
import dev.idem.spring.web.internal.ProblemAnswer;
import dev.idem.spring.webflux.internal.ReactiveAnswers;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * {@code POST ${idem.http.token-path}} (default {@code /api/tokens}) for WebFlux: issues a one-shot
 * token for the caller, answered as {@code 201 {"token":"..."}}, as the Spring MVC endpoint does.
 * The store's call runs on the store threads, never on the event loop.
 */
@RestController
public class ReactiveTokenController {

  private final TokenService tokens;
  private final ReactiveScopeResolver scopes;
  private final Executor storeCalls;

  public ReactiveTokenController(
      TokenService tokens, ReactiveScopeResolver scopes, Executor storeCalls) {
    this.tokens = tokens;
    this.scopes = scopes;
    this.storeCalls = storeCalls;
  }

  /** Issues a token; 503 {@code store-unavailable} when the store is down. */
  @PostMapping("${idem.http.token-path:/api/tokens}")
  public Mono<Void> issue(ServerWebExchange exchange) {
    ServerHttpResponse response = exchange.getResponse();
    return scopes
        .resolve(exchange)
        .publishOn(Schedulers.fromExecutor(storeCalls))
        .map(caller -> tokens.issue(TokenService.scopeFor(caller)))
        .flatMap(
            token -> {
              // a token is 22 URL-safe characters: nothing in it needs escaping
              byte[] body = ("{\"token\":\"" + token + "\"}").getBytes(StandardCharsets.UTF_8);
              response.setStatusCode(HttpStatus.CREATED);
              response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
              response.getHeaders().setContentLength(body.length);
              return response.writeWith(
                  Mono.fromSupplier(() -> response.bufferFactory().wrap(body)));
            })
        .onErrorResume(
            IdempotencyException.class,
            e -> {
              ProblemAnswer problem = ProblemAnswer.of(e);
              return problem == null ? Mono.error(e) : ReactiveAnswers.problem(response, problem);
            })
        .onErrorResume(
            RejectedExecutionException.class,
            e -> ReactiveAnswers.problem(response, ReactiveAnswers.overloaded(e)));
  }
}
