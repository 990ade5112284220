package dev.idem.spring.web.internal;

import dev.idem.core.ClaimRequest;
import dev.idem.core.IdempotencyConfig;
import dev.idem.spring.IdemPolicies;
import dev.idem.spring.Idempotent;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.http.server.PathContainer;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * The protection decision for a request, given its handler (when one was found) and its route:
 * shared by the Spring MVC and the WebFlux filters, which each look the handler up their way. An
 * {@link Idempotent} handler is protected on its HTTP methods; a POST or PATCH whose path matches
 * {@code idem.http.paths} is protected too (a functional route has no handler method: its path
 * decides).
 */
public final class Routes {

  private final List<PathPattern> paths;
  private final IdemPolicies policies;
  private volatile Set<String> extraMethods = Set.of();
  // One Route per handler (and template and method), or per configured path: its config is built
  // once, not per request.
  private final Map<List<Object>, Route> cache = new ConcurrentHashMap<>();
  private volatile int scopeCap = ClaimRequest.NO_CAP;

  public Routes(List<String> paths, IdemPolicies policies) {
    this.paths = paths.stream().map(PathPatternParser.defaultInstance::parse).toList();
    this.policies = policies;
  }

  List<PathPattern> paths() {
    return paths;
  }

  /** Protects, besides POST and PATCH, the HTTP methods {@code extra} that handlers opted in to. */
  public void optIn(Set<String> extra) {
    Set<String> methods = new java.util.TreeSet<>(extra);
    methods.removeAll(ProtectedRoutes.DEFAULT_METHODS);
    extraMethods = Set.copyOf(methods);
  }

  /** Checks the durations of every {@link Idempotent} annotation among {@code handlers}. */
  public void checkAnnotations(Collection<HandlerMethod> handlers) {
    for (HandlerMethod handler : handlers) {
      Idempotent idempotent = handler.getMethodAnnotation(Idempotent.class);
      if (idempotent != null) {
        String operation = idempotent.operation();
        policies.checkAnnotation(operation.isEmpty() ? handler.toString() : operation, idempotent);
      }
    }
  }

  /**
   * Caps the live records of one caller on one route ({@link ClaimRequest#scopeCap()}), on top of
   * any cap a route's own policy sets.
   */
  public void setMaxRecordsPerCaller(int cap) {
    if (cap < 1) {
      throw new IllegalArgumentException("the cap must be at least 1, was " + cap);
    }
    this.scopeCap = cap;
    cache.clear();
  }

  // the cheap test first: most requests are GETs that no handler opted in for
  public boolean mayProtect(String method) {
    return ProtectedRoutes.DEFAULT_METHODS.contains(method) || extraMethods.contains(method);
  }

  /**
   * @param template the handler's route template, or null when the framework did not name one
   * @param path what {@code idem.http.paths} are matched against
   */
  public Route route(HandlerMethod handler, String method, String template, String path) {
    Idempotent idempotent = handler == null ? null : handler.getMethodAnnotation(Idempotent.class);
    if (idempotent != null) {
      if (template == null) {
        // keyed by the client's own path, a cache would grow with every path sent
        return annotated(idempotent, method, path);
      }
      return cache.computeIfAbsent(
          List.of(handler, method, template), k -> annotated(idempotent, method, template));
    }
    if (!ProtectedRoutes.DEFAULT_METHODS.contains(method)) {
      return null;
    }
    PathContainer container = PathContainer.parsePath(path);
    for (PathPattern pattern : paths) {
      if (pattern.matches(container)) {
        String operation = method + " " + pattern.getPatternString();
        return cache.computeIfAbsent(
            List.of(operation),
            k ->
                new Route(
                    operation,
                    pattern.getPatternString(),
                    true,
                    capped(policies.forOperation(operation)),
                    policies.ignoredFields(operation),
                    policies.retryableStatuses(operation)));
      }
    }
    return null;
  }

  private Route annotated(Idempotent idempotent, String httpMethod, String template) {
    String operation =
        idempotent.operation().isEmpty() ? httpMethod + " " + template : idempotent.operation();
    Set<String> ignored = new LinkedHashSet<>(policies.ignoredFields(operation));
    ignored.addAll(List.of(idempotent.ignoreFields()));
    return new Route(
        operation,
        template,
        idempotent.required(),
        capped(policies.forAnnotation(operation, idempotent)),
        Set.copyOf(ignored),
        policies.retryableStatuses(operation));
  }

  private IdempotencyConfig capped(IdempotencyConfig config) {
    int cap = Math.min(scopeCap, config.scopeCap());
    return cap == config.scopeCap() ? config : IdempotencyConfig.from(config).scopeCap(cap).build();
  }
}
