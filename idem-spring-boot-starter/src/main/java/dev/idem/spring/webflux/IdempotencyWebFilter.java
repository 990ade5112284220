package dev.idem.spring.webflux;

import dev.idem.core.AsyncWork;
import dev.idem.core.Deferral;
import dev.idem.core.ExecutionContext;
import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyException;
import dev.idem.core.InvalidKeyException;
import dev.idem.core.LeaseLostException;
import dev.idem.core.TokenService;
import dev.idem.spring.InFlightWork;
import dev.idem.spring.internal.ReactiveTransactions;
import dev.idem.spring.web.IdempotencyFilter;
import dev.idem.spring.web.internal.HttpRules;
import dev.idem.spring.web.internal.ProblemAnswer;
import dev.idem.spring.web.internal.Route;
import dev.idem.spring.web.internal.StoredResponse;
import dev.idem.spring.webflux.internal.BodyReaders;
import dev.idem.spring.webflux.internal.CapturingServerResponse;
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
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.util.ClassUtils;
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
 * Idem's own failures become {@code application/problem+json}. A reactive transaction around the
 * filter decides the outcome, and the answer goes out once it has ended. The rules are {@code
 * HttpRules}, shared with Spring MVC; this filter moves the bytes.
 *
 * <p>No request blocks an event loop: the store's calls run on the {@code StoreCallExecutor}, and
 * the handler runs on the thread the claim ended on, as any WebFlux handler may. A client that goes
 * away does not stop the handler, whose answer is stored for the retry, unless a reactive
 * transaction around the filter rolls back with it. The handler's answer is held in memory until it
 * is stored, so a streaming answer (server-sent events) must not be protected.
 */
public class IdempotencyWebFilter implements WebFilter, Ordered {

  /** Runs after Spring Security's filter chain, which sets the principal. */
  public static final int ORDER = IdempotencyFilter.ORDER;

  private static final boolean SPRING_TX =
      ClassUtils.isPresent(
          "org.springframework.transaction.reactive.TransactionSynchronizationManager",
          IdempotencyWebFilter.class.getClassLoader());

  private final HttpRules rules;
  private final ReactiveRouteResolver routes;
  private final ReactiveScopeResolver scopes;
  private final InFlightWork inFlight;
  private final Executor storeCalls;
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
    this.rules = new HttpRules(idempotency, tokens, maxBodyBytes);
    this.routes = routes;
    this.scopes = scopes;
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
    rules.setClientErrorRetention(retention);
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
    HttpRules.GuardedKey key;
    try {
      key =
          HttpRules.keyOf(
              route,
              headers.getOrEmpty(IdempotencyFilter.KEY_HEADER),
              headers.getFirst(IdempotencyFilter.TOKEN_HEADER));
    } catch (InvalidKeyException e) {
      return answer(exchange, e);
    }
    if (key == null) {
      return chain.filter(exchange);
    }
    exchange.getAttributes().put(IdempotencyFilter.KEY_ATTRIBUTE, key.value());
    return RequestBodies.read(exchange.getRequest(), rules.maxBodyBytes())
        .flatMap(
            body ->
                body.isEmpty()
                    ? ReactiveAnswers.problem(exchange.getResponse(), HttpRules.tooLarge())
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
                                                caller,
                                                body.get(),
                                                fingerprint))))
        .onErrorResume(IdempotencyException.class, e -> answer(exchange, e))
        .onErrorResume(HttpRules.Escaped.class, e -> escapedAnswer(exchange, e))
        .onErrorResume(RejectedExecutionException.class, e -> overloaded(exchange, e))
        .onErrorResume(
            ReactiveFingerprints.MalformedBody.class,
            e -> ReactiveAnswers.problem(exchange.getResponse(), HttpRules.malformed(e.kind())));
  }

  private Mono<Void> run(
      ServerWebExchange exchange,
      WebFilterChain chain,
      Route route,
      HttpRules.GuardedKey key,
      String caller,
      byte[] body,
      Fingerprint fingerprint) {
    Mono<Optional<ReactiveTransactions>> around =
        SPRING_TX ? ReactiveTransactions.current(storeCalls) : Mono.just(Optional.empty());
    return around.flatMap(
        transaction ->
            Mono.deferContextual(
                context -> {
                  CallSite site = new CallSite(exchange, route, transaction);
                  ServerHttpRequest request = exchange.getRequest();
                  ServerWebExchange guarded =
                      ReplayedExchange.of(
                          exchange, RequestBodies.replaying(request, body), site.captured, readers);
                  // NullAway 0.14 does not infer this lambda's type argument; the local's type is
                  // checked
                  @SuppressWarnings("NullAway")
                  AsyncWork<StoredResponse> handled =
                      ctx ->
                          site.started(
                              chain
                                  .filter(guarded)
                                  .then(Mono.fromSupplier(() -> site.outcome(ctx)))
                                  .onErrorResume(
                                      e ->
                                          !site.captured.passedThrough()
                                              && answeredHere(guarded, e),
                                      e ->
                                          errors
                                              .answer(guarded, e)
                                              .then(Mono.fromSupplier(() -> site.outcome(ctx))))
                                  .onErrorResume(
                                      e -> site.captured.passedThrough(),
                                      e ->
                                          Mono.fromSupplier(
                                              () ->
                                                  HttpRules.afterPassThrough(
                                                      route, site.captured, e)))
                                  .onErrorMap(HttpRules::escaped)
                                  .contextWrite(context));
                  AsyncWork<StoredResponse> work = inFlight.trackAsync(handled);
                  Deferral deferral =
                      transaction.map(ReactiveTransactions::deferral).orElse(Deferral.NONE);
                  return Mono.fromFuture(
                          () ->
                              rules
                                  .call(route, key, caller, fingerprint)
                                  .deferTo(deferral)
                                  .runAsync(work, storeCalls),
                          true)
                      .flatMap(
                          answer ->
                              answer.replayed()
                                  ? ReactiveAnswers.replay(exchange.getResponse(), answer.value())
                                  : site.send())
                      .onErrorResume(
                          LeaseLostException.class,
                          e -> {
                            HttpRules.leaseLost(route, e);
                            return site.captured.commit();
                          })
                      .doOnCancel(site::stop);
                }));
  }

  /**
   * One guarded request's answer, held in {@link #captured}, and the transaction around the filter
   * that decides its outcome, if any.
   */
  private final class CallSite {
    final CapturingServerResponse captured;
    private final ServerWebExchange exchange;
    private final Route route;
    private final Optional<ReactiveTransactions> transaction;
    // what the filters before this one set, which an answer to a rollback keeps
    private final Runnable restoreHeaders;
    private volatile boolean stopped;
    private volatile @Nullable CompletableFuture<StoredResponse> running;

    CallSite(ServerWebExchange exchange, Route route, Optional<ReactiveTransactions> transaction) {
      this.exchange = exchange;
      this.route = route;
      this.transaction = transaction;
      this.captured = new CapturingServerResponse(exchange.getResponse(), rules.maxBodyBytes());
      this.restoreHeaders =
          transaction.isPresent() ? ReactiveAnswers.headersNow(exchange.getResponse()) : () -> {};
    }

    /**
     * The handler's work, started unless the transaction around the filter ended first. Without
     * one, a client that goes away does not stop the handler: its answer is stored for the retry.
     */
    // Reactor types toFuture's value as nullable; the handling always ends with an answer
    @SuppressWarnings("NullAway")
    CompletableFuture<StoredResponse> started(Mono<StoredResponse> handling) {
      if (stopped) {
        return CompletableFuture.failedFuture(
            new CancellationException("the transaction around the filter ended first"));
      }
      CompletableFuture<StoredResponse> work = handling.toFuture();
      running = work;
      if (stopped) {
        work.cancel(false);
      }
      return work;
    }

    /**
     * The request was cancelled (the client went away): a transaction around the filter rolls back
     * with it, so the handler stops too, and nothing it would still do runs outside that
     * transaction; its outcome, a cancellation, follows the rollback and frees the key.
     */
    void stop() {
      if (transaction.isEmpty()) {
        return;
      }
      stopped = true;
      CompletableFuture<StoredResponse> work = running;
      if (work != null) {
        work.cancel(false);
      }
    }

    // A refusal of the request before its handler ran is an error, never an answer: what arrives
    // here ran. With a transaction around the filter, every answer is stored with it.
    StoredResponse outcome(ExecutionContext work) {
      return rules.outcome(work, route, captured, false, transaction.isPresent());
    }

    /**
     * Sends the held answer, or, with a transaction around the filter, holds it until that ends:
     * sent before, it would tell the client of an effect that a failed commit or a rollback then
     * undid. Committed, the answer goes out after the outcome is settled; rolled back, the client
     * is told that nothing was kept ({@link HttpRules#rolledBack}); an unknown end sends nothing of
     * Idem's, the handler's headers taken back. An answer already passing through is not held, nor
     * one whose transaction ended before it (its outcome was stored as without one).
     */
    Mono<Void> send() {
      boolean held =
          transaction.isPresent()
              && !captured.passedThrough()
              && transaction
                  .get()
                  .whenEnded(
                      captured::commit,
                      () -> {
                        restoreHeaders.run();
                        return ReactiveAnswers.problem(
                            exchange.getResponse(), HttpRules.rolledBack());
                      },
                      restoreHeaders);
      return held ? Mono.empty() : captured.commit();
    }
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

  private static Mono<Void> escapedAnswer(ServerWebExchange exchange, HttpRules.Escaped e) {
    ProblemAnswer problem = ProblemAnswer.escaped(e.refusal());
    if (problem == null || exchange.getResponse().isCommitted()) {
      return Mono.error(e.refusal());
    }
    return ReactiveAnswers.problem(exchange.getResponse(), problem);
  }

  private static Mono<Void> answer(ServerWebExchange exchange, IdempotencyException e) {
    ProblemAnswer problem = ProblemAnswer.of(e);
    if (problem == null || exchange.getResponse().isCommitted()) {
      return Mono.error(e);
    }
    return ReactiveAnswers.problem(exchange.getResponse(), problem);
  }

  private static Mono<Void> overloaded(ServerWebExchange exchange, RejectedExecutionException e) {
    if (exchange.getResponse().isCommitted()) {
      return Mono.error(e);
    }
    return ReactiveAnswers.problem(exchange.getResponse(), ReactiveAnswers.overloaded(e));
  }
}
