package dev.idem.spring.web;

import dev.idem.core.Deferral;
import dev.idem.core.Executed;
import dev.idem.core.ExecutionContext;
import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyException;
import dev.idem.core.LeaseLostException;
import dev.idem.core.TokenService;
import dev.idem.core.Work;
import dev.idem.core.store.ClaimRequest;
import dev.idem.spring.InFlightWork;
import dev.idem.spring.internal.TransactionOutcomes;
import dev.idem.spring.web.internal.CachedBodyRequest;
import dev.idem.spring.web.internal.CapturingResponse;
import dev.idem.spring.web.internal.FormFields;
import dev.idem.spring.web.internal.HttpRules;
import dev.idem.spring.web.internal.ProblemAnswer;
import dev.idem.spring.web.internal.RequestFingerprint;
import dev.idem.spring.web.internal.Route;
import dev.idem.spring.web.internal.RouteResolver;
import dev.idem.spring.web.internal.ServletAnswers;
import dev.idem.spring.web.internal.ServletParts;
import dev.idem.spring.web.internal.ServletRefusals;
import dev.idem.spring.web.internal.StoredResponse;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.util.ClassUtils;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.method.HandlerMethod;

/**
 * The {@code Idempotency-Key} semantics for Spring MVC: POST and PATCH requests to protected routes
 * (and requests of any method whose handler carries {@code @Idempotent}) run once per key and
 * caller; a repeat gets the stored status, allow-listed headers and body with {@code
 * Idempotent-Replayed: true}. 2xx-4xx answers are stored; 5xx answers, the policy's {@code
 * retryable-statuses}, refusals before the handler ran and unhandled exceptions are passed on
 * unstored and free the key. An answer whose body is over the limit keeps the key: its status and
 * headers are stored and repeats get a {@code not-replayable} problem (410). When a transaction is
 * around the filter it decides instead: every answer is stored when it commits (the handler's
 * writes are there) and the key freed when it rolls back. Idem's own failures become {@code
 * application/problem+json}. The rules are {@link HttpRules}, shared with WebFlux; this filter
 * moves the bytes.
 */
public class IdempotencyFilter extends OncePerRequestFilter implements Ordered {

  /** The header that carries the client's key. */
  public static final String KEY_HEADER = "Idempotency-Key";

  /** The header that carries a server-issued token instead of a key. */
  public static final String TOKEN_HEADER = "X-Idempotent-Token";

  /** The header, always {@code true}, that marks a replayed answer. */
  public static final String REPLAYED_HEADER = "Idempotent-Replayed";

  /**
   * The request attribute that holds the key a protected request runs under, as a {@code String}:
   * the parsed {@code Idempotency-Key} value (quotes removed), or the {@code X-Idempotent-Token},
   * exactly as the store keys the record. Set before the handler runs, so that it can derive things
   * (an order number) from the key that was used.
   */
  public static final String KEY_ATTRIBUTE = "dev.idem.spring.web.IdempotencyFilter.KEY";

  /** Runs after security filters (which set the principal) and before the dispatcher. */
  public static final int ORDER = Ordered.LOWEST_PRECEDENCE - 100;

  private static final Logger log = LoggerFactory.getLogger(IdempotencyFilter.class);
  private static final boolean SPRING_TX =
      ClassUtils.isPresent(
          "org.springframework.transaction.support.TransactionSynchronizationManager",
          IdempotencyFilter.class.getClassLoader());

  private final HttpRules rules;
  private final RouteResolver routes;
  private final IdempotencyScopeResolver scopes;
  private volatile boolean containerParsesParts = true;
  private final InFlightWork inFlight;

  public IdempotencyFilter(
      Idempotency idempotency,
      TokenService tokens,
      RouteResolver routes,
      IdempotencyScopeResolver scopes,
      long maxBodyBytes) {
    this(idempotency, tokens, routes, scopes, maxBodyBytes, new InFlightWork());
  }

  /**
   * @param inFlight counts the handlers running under a claimed key
   */
  public IdempotencyFilter(
      Idempotency idempotency,
      TokenService tokens,
      RouteResolver routes,
      IdempotencyScopeResolver scopes,
      long maxBodyBytes,
      InFlightWork inFlight) {
    this.rules = new HttpRules(idempotency, tokens, maxBodyBytes);
    this.routes = routes;
    this.scopes = scopes;
    this.inFlight = inFlight;
  }

  /**
   * Keeps stored 4xx answers no longer than {@code retention} (when it is shorter than the
   * operation's retention); null keeps them as long as any answer.
   */
  public void setClientErrorRetention(Duration retention) {
    rules.setClientErrorRetention(retention);
  }

  /**
   * Whether the servlet container parses multipart bodies (Spring Boot's {@code
   * spring.servlet.multipart.enabled}, the default): then the filter reads an upload's parts
   * through the container and fingerprints them, not the random boundary. Without it the
   * application parses uploads itself, so the filter reads the body as any other and hands it on.
   */
  public void setContainerParsesParts(boolean parses) {
    this.containerParsesParts = parses;
  }

  /**
   * Caps the live records of one caller on one route ({@link ClaimRequest#scopeCap()}): a new key
   * past it answers 429 store-full; {@link ClaimRequest#NO_CAP} (the default) for none.
   */
  public void setMaxRecordsPerCaller(int cap) {
    routes.setMaxRecordsPerCaller(cap);
  }

  /**
   * Checks the application's handlers, refusing those that cannot be protected; called once the
   * context has started.
   */
  public void checkHandlers() {
    routes.checkHandlers();
  }

  /**
   * What the filter asks of requests with {@code method} that {@code handler} answers on the route
   * {@code template}, decided as it decides for each request ({@code idem.http.paths} matched
   * against the template): for those who describe the API rather than serve it.
   *
   * @param method an HTTP method in upper case ({@code POST})
   * @param template the route as Spring MVC maps it ({@code /orders/{id}})
   */
  public KeyRequirement keyRequirement(HandlerMethod handler, String method, String template) {
    Route route = routes.resolve(handler, method, template);
    if (route == null) {
      return KeyRequirement.NONE;
    }
    return route.required() ? KeyRequirement.REQUIRED : KeyRequirement.OPTIONAL;
  }

  @Override
  public int getOrder() {
    return ORDER;
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    Route route = routes.resolve(request);
    if (route == null) {
      chain.doFilter(request, response);
      return;
    }
    try {
      HttpRules.GuardedKey key =
          HttpRules.keyOf(
              route,
              Collections.list(request.getHeaders(KEY_HEADER)),
              request.getHeader(TOKEN_HEADER));
      if (key == null) {
        chain.doFilter(request, response);
        return;
      }
      guard(request, response, chain, route, key);
    } catch (IdempotencyException e) {
      if (response.isCommitted() || !ServletAnswers.write(response, e)) {
        throw e;
      }
    } catch (HttpRules.Escaped e) {
      ProblemAnswer problem = ProblemAnswer.escaped(e.refusal());
      if (response.isCommitted() || problem == null) {
        throw e.refusal();
      }
      ServletAnswers.write(response, problem);
    }
  }

  private void guard(
      HttpServletRequest request,
      HttpServletResponse response,
      FilterChain chain,
      Route route,
      HttpRules.GuardedKey key)
      throws ServletException, IOException {
    request.setAttribute(KEY_ATTRIBUTE, key.value());
    HttpServletRequest cached;
    Fingerprint fingerprint;
    long maxBodyBytes = rules.maxBodyBytes();
    if (containerParsesParts && RequestFingerprint.isMultipart(request.getContentType())) {
      // the container parses the parts and serves them to the handler again; the body stream
      // stays unread, and the random boundary out of the fingerprint
      List<RequestFingerprint.Part> parts;
      try {
        parts = ServletParts.of(request, maxBodyBytes);
      } catch (ServletException | IOException | IllegalStateException e) {
        // the container could not read the parts: over its own limits, malformed, or cut off
        log.debug("multipart body of {} refused: {}", route.operation(), e.toString());
        ServletAnswers.write(
            response,
            ServletParts.overLimit(e) ? HttpRules.tooLarge() : HttpRules.malformed("multipart"));
        return;
      }
      if (parts == null) {
        ServletAnswers.write(response, HttpRules.tooLarge());
        return;
      }
      cached = request;
      fingerprint =
          RequestFingerprint.ofParts(
              request.getMethod(),
              RouteResolver.pathWithinApplication(request),
              request.getQueryString(),
              request.getContentType(),
              parts);
    } else {
      CachedBodyRequest body = CachedBodyRequest.read(request, maxBodyBytes);
      if (body == null) {
        ServletAnswers.write(response, HttpRules.tooLarge());
        return;
      }
      cached = body;
      try {
        fingerprint = fingerprintOf(request, route, body);
      } catch (FormFields.MalformedFormException e) {
        ServletAnswers.write(response, HttpRules.malformed("form"));
        return;
      }
    }
    String caller = scopes.resolve(request);
    Deferral deferral =
        SPRING_TX ? TransactionOutcomes.deferral(rules.idempotency().store()) : Deferral.NONE;
    // a transaction around the filter decides: whatever the handler answered commits with it
    boolean transactionDecides =
        deferral.holds() || rules.idempotency().store().joinsCurrentTransaction();
    // what the filters before this one set, which an answer to a rollback keeps
    List<Map.Entry<String, String>> headersBefore =
        transactionDecides ? ServletAnswers.headers(response) : List.of();
    CapturingResponse captured = new CapturingResponse(response, maxBodyBytes);
    Work<StoredResponse, Exception> work =
        inFlight.<StoredResponse, Exception>track(
            ctx -> {
              try {
                chain.doFilter(cached, captured);
              } catch (IOException | ServletException | RuntimeException e) {
                if (!captured.isPassingThrough() || cached.isAsyncStarted()) {
                  // the dispatcher wraps what a handler threw: "Request processing failed"
                  if (e instanceof IdempotencyException refusal) {
                    throw new HttpRules.Escaped(refusal);
                  } else if (e.getCause() instanceof IdempotencyException refusal) {
                    throw new HttpRules.Escaped(refusal);
                  }
                  throw e;
                }
                return HttpRules.afterPassThrough(route, captured, e);
              }
              return outcome(ctx, cached, route, captured, transactionDecides);
            });
    try {
      Executed<StoredResponse> executed =
          rules.call(route, key, caller, fingerprint).deferTo(deferral).runWithStatus(work);
      if (executed.replayed()) {
        ServletAnswers.replay(executed.value(), response);
      } else if (!transactionDecides
          || !sentAfterCommit(captured, response, headersBefore, route)) {
        captured.commit();
      }
    } catch (LeaseLostException e) {
      HttpRules.leaseLost(route, e);
      captured.commit();
    } catch (IOException | ServletException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new ServletException(e);
    }
  }

  /**
   * Holds a held answer back until the transaction around the filter, which decides the outcome,
   * ends: sent before, it would tell the client of an effect that a failed commit (an ORM's flush
   * refused at commit) or a rollback then undid, with the key freed and nothing to retry.
   * Committed, the answer goes out after the outcome is settled, so a repeat finds it stored;
   * rolled back, the client is told that nothing was kept ({@link HttpRules#rolledBack}); an
   * unknown end sends nothing, and the application's failure is the answer. An answer already
   * passing through, or left to asynchronous processing, is not held: part of it is on its way.
   * False when nothing was held.
   */
  private static boolean sentAfterCommit(
      CapturingResponse captured,
      HttpServletResponse response,
      List<Map.Entry<String, String>> headersBefore,
      Route route) {
    if (!SPRING_TX || captured.isPassingThrough()) {
      return false;
    }
    return TransactionOutcomes.whenEnded(
        () -> send(route, captured::commit),
        () -> send(route, () -> ServletAnswers.rolledBack(response, headersBefore)));
  }

  private interface Sending {
    void send() throws IOException;
  }

  // at the transaction's end, where nothing may throw: a client that left is told nothing
  private static void send(Route route, Sending sending) {
    try {
      sending.send();
    } catch (IOException | RuntimeException e) {
      log.debug("the answer of {} could not be sent: {}", route.operation(), e.toString());
    }
  }

  /**
   * The answer to store, or one that goes to the client without being stored, discarded ({@link
   * HttpRules#outcome}); an asynchronous answer is never stored.
   */
  private StoredResponse outcome(
      ExecutionContext work,
      HttpServletRequest request,
      Route route,
      CapturingResponse captured,
      boolean transactionDecides)
      throws IOException {
    if (request.isAsyncStarted()) {
      // an asynchronous answer whose declared type hid it from the start-up check: its body comes
      // after the chain returned, so none of it can be stored; it goes to the client as written
      work.discardOutcome();
      StoredResponse given = captured.snapshotWithoutBody();
      captured.leaveToAsync();
      log.warn(
          "{} answered asynchronously, which a protected route cannot store; nothing is stored"
              + " and the key is freed, so a repeat runs it again. Return the answer itself",
          route.operation());
      return given;
    }
    return rules.outcome(
        work, route, captured, ServletRefusals.refusedBeforeHandler(request), transactionDecides);
  }

  // A form counts by its fields as the handler reads them; any other body by its bytes.
  private static Fingerprint fingerprintOf(
      HttpServletRequest request, Route route, CachedBodyRequest body) {
    return FormFields.isForm(request.getContentType())
        ? RequestFingerprint.ofFields(
            request.getMethod(),
            RouteResolver.pathWithinApplication(request),
            request.getQueryString(),
            request.getContentType(),
            body.getParameterMap(),
            route.ignoredFields())
        : fingerprint(request, route, body.body());
  }

  private static Fingerprint fingerprint(HttpServletRequest request, Route route, byte[] body) {
    return RequestFingerprint.of(
        request.getMethod(),
        RouteResolver.pathWithinApplication(request),
        request.getQueryString(),
        request.getContentType(),
        body,
        route.ignoredFields());
  }
}
