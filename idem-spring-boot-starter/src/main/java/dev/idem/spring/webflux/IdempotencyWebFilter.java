package dev.idem.spring.webflux;

import dev.idem.core.AsyncWork;
import dev.idem.core.Executed;
import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyException;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.InvalidKeyException;
import dev.idem.core.LeaseLostException;
import dev.idem.core.ResultCodec;
import dev.idem.core.TokenService;
import dev.idem.spring.InFlightWork;
import dev.idem.spring.web.IdempotencyFilter;
import dev.idem.spring.web.internal.KeyHeader;
import dev.idem.spring.web.internal.Problem;
import dev.idem.spring.web.internal.Route;
import dev.idem.spring.web.internal.StoredResponse;
import dev.idem.spring.webflux.internal.BodyReaders;
import dev.idem.spring.webflux.internal.CapturedResponse;
import dev.idem.spring.webflux.internal.ErrorAnswers;
import dev.idem.spring.webflux.internal.ReactiveAnswers;
import dev.idem.spring.webflux.internal.ReactiveFingerprints;
import dev.idem.spring.webflux.internal.ReactiveRefusals;
import dev.idem.spring.webflux.internal.ReactiveRouteResolver;
import dev.idem.spring.webflux.internal.ReplayedExchange;
import dev.idem.spring.webflux.internal.RequestBodies;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.ErrorResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * The {@code Idempotency-Key} semantics for Spring WebFlux, as {@link IdempotencyFilter} gives them
 * to Spring MVC: POST and PATCH requests to protected routes (and requests of any method whose
 * handler carries {@code @Idempotent}) run once per key and caller; a repeat gets the stored
 * status, allow-listed headers and body with {@code Idempotent-Replayed: true}. 2xx-4xx answers are
 * stored; 5xx answers, the policy's {@code retryable-statuses}, refusals of the request's input
 * (see {@code ReactiveRefusals}) and every other error are passed on unstored and free the key. A
 * 4xx error the handler raised, or one raised while writing its answer (406), is answered inside
 * the filter by the application's exception handlers and kept like any other 4xx. An answer whose
 * body is over the limit keeps the key and repeats get a {@code not-replayable} problem (410).
 * Idem's own failures become {@code application/problem+json}.
 *
 * <p>No request blocks an event loop: the store's calls run on the {@code StoreCallExecutor}, and
 * the handler runs on the thread the claim ended on, as any WebFlux handler may. A client that goes
 * away does not stop the handler; its answer is stored for the retry. The handler's answer is held
 * in memory until it is stored, so a streaming answer (server-sent events) must not be protected.
 */
public class IdempotencyWebFilter implements WebFilter, Ordered {

  /** Runs after Spring Security's filter chain, which sets the principal. */
  public static final int ORDER = IdempotencyFilter.ORDER;

  private static final Logger log = LoggerFactory.getLogger(IdempotencyWebFilter.class);

  private final Idempotency idempotency;
  private final TokenService tokens;
  private final ReactiveRouteResolver routes;
  private final ReactiveScopeResolver scopes;
  private final long maxBodyBytes;
  private final InFlightWork inFlight;
  private final Executor storeCalls;
  private volatile ResultCodec<StoredResponse> codec = StoredResponse.codec();
  private volatile ErrorAnswers errors = new ErrorAnswers(List::of);
  private final BodyReaders readers;
  private final ReactiveFingerprints fingerprints;

  /**
   * @param maxBodyBytes the largest request body read and response body stored
   * @param storeCalls makes the store's calls, which may block
   */
  public IdempotencyWebFilter(
      Idempotency idempotency,
      TokenService tokens,
      ReactiveRouteResolver routes,
      ReactiveScopeResolver scopes,
      long maxBodyBytes,
      InFlightWork inFlight,
      Executor storeCalls) {
    this.idempotency = idempotency;
    this.tokens = tokens;
    this.routes = routes;
    this.scopes = scopes;
    this.maxBodyBytes = maxBodyBytes;
    this.inFlight = inFlight;
    this.storeCalls = storeCalls;
    this.readers = new BodyReaders(maxBodyBytes);
    this.fingerprints = new ReactiveFingerprints(readers);
  }

  /**
   * The application's {@link WebExceptionHandler}s, in order: an error the handler chain ends with
   * is answered through them inside the filter, as Spring MVC answers it inside its servlet, so
   * that the answer is captured and kept by the same rules as any other. Without them (the default)
   * an error goes on unanswered and frees the key.
   */
  public void setErrorHandlers(Supplier<List<WebExceptionHandler>> handlers) {
    this.errors = new ErrorAnswers(handlers);
  }

  /** As {@link IdempotencyFilter#setClientErrorRetention}. */
  public void setClientErrorRetention(Duration retention) {
    this.codec = StoredResponse.codec(retention);
  }

  /** Checks the application's handlers; called once the context has started. */
  public void checkHandlers() {
    routes.checkHandlers();
  }

  @Override
  public int getOrder() {
    return ORDER;
  }

  @Override
  public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
    return routes
        .resolve(exchange)
        .map(Optional::of)
        .defaultIfEmpty(Optional.empty())
        .flatMap(
            route ->
                route.isPresent() ? guard(exchange, chain, route.get()) : chain.filter(exchange));
  }

  private Mono<Void> guard(ServerWebExchange exchange, WebFilterChain chain, Route route) {
    HttpHeaders headers = exchange.getRequest().getHeaders();
    List<String> keys = headers.getOrEmpty(IdempotencyFilter.KEY_HEADER);
    String token = headers.getFirst(IdempotencyFilter.TOKEN_HEADER);
    if (keys.isEmpty() && token == null && !route.required()) {
      return chain.filter(exchange);
    }
    String key;
    try {
      key = KeyHeader.parse(keys);
      if (key == null && token == null) {
        throw InvalidKeyException.missing("this route needs an Idempotency-Key header");
      }
    } catch (InvalidKeyException e) {
      return answer(exchange, e);
    }
    exchange.getAttributes().put(IdempotencyFilter.KEY_ATTRIBUTE, key != null ? key : token);
    return RequestBodies.read(exchange.getRequest(), maxBodyBytes)
        .flatMap(
            body ->
                body.isEmpty()
                    ? tooLarge(exchange)
                    : scopes
                        .resolve(exchange)
                        .flatMap(
                            caller ->
                                fingerprints
                                    .of(exchange.getRequest(), body.get(), route.ignoredFields())
                                    .flatMap(
                                        fingerprint ->
                                            run(
                                                exchange,
                                                chain,
                                                route,
                                                key,
                                                token,
                                                caller,
                                                body.get(),
                                                fingerprint))))
        .onErrorResume(IdempotencyException.class, e -> answer(exchange, e))
        .onErrorResume(RejectedExecutionException.class, e -> overloaded(exchange, e))
        .onErrorResume(
            ReactiveFingerprints.MalformedBody.class,
            e ->
                ReactiveAnswers.problem(
                    exchange.getResponse(),
                    new Problem(400, "malformed-body", "Malformed request body", null, null)));
  }

  private Mono<Void> run(
      ServerWebExchange exchange,
      WebFilterChain chain,
      Route route,
      String key,
      String token,
      String caller,
      byte[] body,
      Fingerprint fingerprint) {
    ServerHttpRequest request = exchange.getRequest();
    CapturedResponse captured = new CapturedResponse(exchange.getResponse(), maxBodyBytes);
    ServerWebExchange guarded =
        ReplayedExchange.of(exchange, RequestBodies.replaying(request, body), captured, readers);
    return Mono.deferContextual(
        context -> {
          AsyncWork<StoredResponse> work =
              inFlight.trackAsync(
                  ctx ->
                      chain
                          .filter(guarded)
                          .then(Mono.fromSupplier(() -> outcome(route, captured)))
                          .onErrorResume(
                              e -> !captured.passedThrough() && answeredHere(guarded, e),
                              e ->
                                  errors
                                      .answer(guarded, e)
                                      .then(Mono.fromSupplier(() -> outcome(route, captured))))
                          .onErrorResume(
                              e -> captured.passedThrough(),
                              e -> Mono.fromSupplier(() -> afterPassThrough(route, captured, e)))
                          .contextWrite(context)
                          .toFuture());
          CompletableFuture<Executed<StoredResponse>> executed =
              key == null
                  ? tokens.executeAsync(
                      TokenService.scopeFor(caller),
                      token,
                      fingerprint,
                      codec,
                      work,
                      route.config(),
                      storeCalls)
                  : idempotency.executeAsync(
                      IdempotencyKey.of(IdempotencyKey.scope(route.operation(), caller), key),
                      fingerprint,
                      codec,
                      work,
                      route.config(),
                      storeCalls);
          return Mono.fromFuture(executed, true)
              .flatMap(
                  answer ->
                      answer.replayed()
                          ? ReactiveAnswers.replay(exchange.getResponse(), answer.value())
                          : captured.commit())
              .onErrorResume(
                  LeaseLostException.class,
                  e -> {
                    // the handler ran, but another owner took the key over before its answer was
                    // stored
                    log.warn(
                        "{} ran but its outcome was not stored: {}",
                        route.operation(),
                        e.toString());
                    return captured.commit();
                  });
        });
  }

  // An error that is the handler's answer: a 4xx it raised, or one raised while writing what it
  // returned (406), is answered here by the application's exception handlers and kept as any 4xx.
  // Any other error goes on as it came, to the filters outside this one (Spring Security turns its
  // own into 401 and 403) and the exception handlers, and frees the key: a 5xx, or a refusal of the
  // request's input raised before the handler's work.
  private static boolean answeredHere(ServerWebExchange exchange, Throwable e) {
    return e instanceof ErrorResponse answer
        && answer.getStatusCode().is4xxClientError()
        && !ReactiveRefusals.beforeHandler(exchange, e);
  }

  /**
   * The answer to store, or null for one that goes to the client without being stored, which frees
   * the key: a retryable status.
   */
  private StoredResponse outcome(Route route, CapturedResponse captured) {
    if (route.isRetryable(
        captured.status(), captured.getHeaders().getFirst(HttpHeaders.RETRY_AFTER))) {
      return null;
    }
    if (captured.bodySize() > maxBodyBytes) {
      // the handler ran: the key stays taken, and repeats learn that its answer is not kept
      log.warn(
          "response body of {} bytes is over idem.http.max-body-bytes ({}); status and headers"
              + " stored, repeats get a not-replayable problem",
          captured.bodySize(),
          maxBodyBytes);
      return captured.snapshotWithoutBody();
    }
    return captured.snapshot();
  }

  // Part of the answer already reached the client, so the handler ran: a failure now (the client
  // gone mid-answer) must not free the key for a second run.
  private static StoredResponse afterPassThrough(
      Route route, CapturedResponse captured, Throwable failure) {
    log.warn(
        "{} failed after its answer began to go out ({}); the key stays taken",
        route.operation(),
        failure.toString());
    return captured.snapshotWithoutBody();
  }

  private static Mono<Void> answer(ServerWebExchange exchange, IdempotencyException e) {
    Problem problem = Problem.of(e);
    if (problem == null || exchange.getResponse().isCommitted()) {
      return Mono.error(e);
    }
    return ReactiveAnswers.problem(exchange.getResponse(), problem);
  }

  private static Mono<Void> tooLarge(ServerWebExchange exchange) {
    return ReactiveAnswers.problem(
        exchange.getResponse(),
        new Problem(413, "body-too-large", "Request body over the limit", null, null));
  }

  private static Mono<Void> overloaded(ServerWebExchange exchange, RejectedExecutionException e) {
    if (exchange.getResponse().isCommitted()) {
      return Mono.error(e);
    }
    return ReactiveAnswers.problem(exchange.getResponse(), ReactiveAnswers.overloaded(e));
  }
}
