package dev.idem.spring.web.internal;

import dev.idem.spring.IdemPolicies;
import dev.idem.spring.Idempotent;
import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerExecutionChain;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.util.ServletRequestPathUtils;

/**
 * Decides whether a request is protected: its handler method carries {@link Idempotent} (on any
 * HTTP method: an annotation on a PUT, DELETE or GET handler is an explicit opt-in), or it is a
 * POST or PATCH whose path matches one of {@code idem.http.paths}. Looks the handler up in Spring
 * MVC's own mapping, so the route template is the one the handler was mapped with.
 */
public final class RouteResolver {

  private final ObjectProvider<RequestMappingHandlerMapping> mappings;
  private final Routes routes;
  private final ResolvedBeans<RequestMappingHandlerMapping> resolved;

  public RouteResolver(
      ObjectProvider<RequestMappingHandlerMapping> mappings,
      List<String> paths,
      IdemPolicies policies) {
    this.mappings = mappings;
    this.resolved = new ResolvedBeans<>(mappings);
    this.routes = new Routes(paths, policies);
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
    List<Routes.Mapping> all = new java.util.ArrayList<>();
    for (RequestMappingHandlerMapping mapping : mappings.orderedStream().toList()) {
      extra.addAll(ProtectedRoutes.check(mapping.getHandlerMethods(), routes.paths()));
      routes.checkAnnotations(mapping.getHandlerMethods().values());
      mapping
          .getHandlerMethods()
          .forEach(
              (info, handler) ->
                  all.add(
                      new Routes.Mapping(
                          handler,
                          ProtectedRoutes.methods(info.getMethodsCondition().getMethods()),
                          info.getPatternValues())));
    }
    routes.optIn(extra);
    routes.learn(all);
  }

  /**
   * Caps the live records of one caller on one route; see {@link Routes#setMaxRecordsPerCaller}.
   */
  public void setMaxRecordsPerCaller(int cap) {
    routes.setMaxRecordsPerCaller(cap);
  }

  /** The protected route of {@code request}, or null when the filter lets it through. */
  public @Nullable Route resolve(HttpServletRequest request) {
    String method = request.getMethod();
    if (!routes.mayProtect(method)) {
      return null;
    }
    HandlerExecutionChain chain = lookUp(request);
    HandlerMethod handler =
        chain != null && chain.getHandler() instanceof HandlerMethod found ? found : null;
    Object pattern = request.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE);
    return routes.route(
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
  public @Nullable Route resolve(HandlerMethod handler, String method, String template) {
    return routes.mayProtect(method) ? routes.route(handler, method, template, template) : null;
  }

  private @Nullable HandlerExecutionChain lookUp(HttpServletRequest request) {
    boolean parsed = ServletRequestPathUtils.hasParsedRequestPath(request);
    if (!parsed) {
      ServletRequestPathUtils.parseAndCache(request);
    }
    try {
      for (RequestMappingHandlerMapping mapping : resolved.get()) {
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

  private static @Nullable HandlerExecutionChain handler(
      RequestMappingHandlerMapping mapping, HttpServletRequest request) {
    try {
      return mapping.getHandler(request);
    } catch (Exception e) {
      // no handler matches (wrong media type and the like): Spring MVC answers that itself
      return null;
    }
  }

  /**
   * The request's path without the application's context path: what routes and fingerprints see.
   */
  public static String pathWithinApplication(HttpServletRequest request) {
    String uri = request.getRequestURI();
    String context = request.getContextPath();
    return context != null && uri.startsWith(context) ? uri.substring(context.length()) : uri;
  }
}
