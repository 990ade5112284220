package dev.idem.spring.web.internal;

import dev.idem.core.ClaimRequest;
import dev.idem.core.IdempotencyConfig;
import dev.idem.spring.IdemPolicies;
import dev.idem.spring.Idempotent;
import jakarta.servlet.http.HttpServletRequest;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.server.PathContainer;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerExecutionChain;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.util.ServletRequestPathUtils;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * Decides whether a request is protected: its handler method carries {@link Idempotent} (on any
 * HTTP method: an annotation on a PUT, DELETE or GET handler is an explicit opt-in), or it is a
 * POST or PATCH whose path matches one of {@code idem.http.paths}. Looks the handler up in Spring
 * MVC's own mapping, so the route template is the one the handler was mapped with.
 */
public final class RouteResolver {

  private final ObjectProvider<RequestMappingHandlerMapping> mappings;
  private final List<PathPattern> paths;
  private final IdemPolicies policies;
  private volatile List<RequestMappingHandlerMapping> resolved;
  private volatile Set<String> extraMethods = Set.of();
  // One Route per handler (and template and method), or per configured path: its config is built
  // once, not per request.
  private final Map<List<Object>, Route> routes = new ConcurrentHashMap<>();
  private volatile int scopeCap = ClaimRequest.NO_CAP;

  public RouteResolver(
      ObjectProvider<RequestMappingHandlerMapping> mappings,
      List<String> paths,
      IdemPolicies policies) {
    this.mappings = mappings;
    this.paths = paths.stream().map(PathPatternParser.defaultInstance::parse).toList();
    this.policies = policies;
  }

  /**
   * Checks every handler method once the context has started: refuses protected handlers that
   * answer asynchronously or whose annotation's durations are wrong, and learns which methods
   * besides POST and PATCH {@link Idempotent} handlers opt in to.
   *
   * @throws IllegalStateException naming a protected handler the filter cannot protect
   */
  public void checkHandlers() {
    Set<String> extra = new java.util.TreeSet<>();
    for (RequestMappingHandlerMapping mapping : mappings.orderedStream().toList()) {
      extra.addAll(ProtectedRoutes.check(mapping.getHandlerMethods(), paths));
      for (HandlerMethod handler : mapping.getHandlerMethods().values()) {
        Idempotent idempotent = handler.getMethodAnnotation(Idempotent.class);
        if (idempotent != null) {
          String operation = idempotent.operation();
          policies.checkAnnotation(
              operation.isEmpty() ? handler.toString() : operation, idempotent);
        }
      }
    }
    extraMethods = Set.copyOf(extra);
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
    routes.clear();
  }

  // the cheap test first: most requests are GETs that no handler opted in for
  private boolean mayProtect(String method) {
    return ProtectedRoutes.DEFAULT_METHODS.contains(method) || extraMethods.contains(method);
  }

  /** The protected route of {@code request}, or null when the filter lets it through. */
  public Route resolve(HttpServletRequest request) {
    String method = request.getMethod();
    if (!mayProtect(method)) {
      return null;
    }
    HandlerExecutionChain chain = lookUp(request);
    HandlerMethod handler =
        chain != null && chain.getHandler() instanceof HandlerMethod found ? found : null;
    Object pattern = request.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE);
    return route(
        handler,
        method,
        pattern == null ? null : pattern.toString(),
        pathWithinApplication(request));
  }

  /**
   * The route under which requests with {@code method} that {@code handler} answers on the route
   * {@code template} are protected, or null when the filter lets them through: the decision {@link
   * #resolve(HttpServletRequest)} makes for a request, made without one (to describe the API). Path
   * patterns are matched against the template.
   */
  public Route resolve(HandlerMethod handler, String method, String template) {
    return mayProtect(method) ? route(handler, method, template, template) : null;
  }

  /**
   * @param template the handler's route template, or null when Spring MVC did not name one
   * @param path what {@code idem.http.paths} are matched against
   */
  private Route route(HandlerMethod handler, String method, String template, String path) {
    Idempotent idempotent = handler == null ? null : handler.getMethodAnnotation(Idempotent.class);
    if (idempotent != null) {
      if (template == null) {
        // keyed by the client's own path, a cache would grow with every path sent
        return annotated(idempotent, method, path);
      }
      return routes.computeIfAbsent(
          List.of(handler, method, template), k -> annotated(idempotent, method, template));
    }
    if (!ProtectedRoutes.DEFAULT_METHODS.contains(method)) {
      return null;
    }
    PathContainer container = PathContainer.parsePath(path);
    for (PathPattern pattern : paths) {
      if (pattern.matches(container)) {
        String operation = method + " " + pattern.getPatternString();
        return routes.computeIfAbsent(
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

  private HandlerExecutionChain lookUp(HttpServletRequest request) {
    boolean parsed = ServletRequestPathUtils.hasParsedRequestPath(request);
    if (!parsed) {
      ServletRequestPathUtils.parseAndCache(request);
    }
    try {
      for (RequestMappingHandlerMapping mapping : mappings()) {
        HandlerExecutionChain chain = handler(mapping, request);
        if (chain != null) {
          return chain;
        }
      }
      return null;
    } finally {
      if (!parsed) {
        ServletRequestPathUtils.clearParsedRequestPath(request);
      }
    }
  }

  // Looking the beans up took a sixth of the filter's time per request; they are fixed once the
  // context runs. An empty list is not kept, so a request served before the mappings exist does
  // not leave every later one unprotected.
  private List<RequestMappingHandlerMapping> mappings() {
    List<RequestMappingHandlerMapping> list = resolved;
    if (list == null) {
      list = mappings.orderedStream().toList();
      if (!list.isEmpty()) {
        resolved = list;
      }
    }
    return list;
  }

  private static HandlerExecutionChain handler(
      RequestMappingHandlerMapping mapping, HttpServletRequest request) {
    try {
      return mapping.getHandler(request);
    } catch (Exception e) {
      // no handler matches (wrong media type and the like): Spring MVC answers that itself
      return null;
    }
  }

  private static String pathWithinApplication(HttpServletRequest request) {
    String uri = request.getRequestURI();
    String context = request.getContextPath();
    return context != null && uri.startsWith(context) ? uri.substring(context.length()) : uri;
  }
}
