package dev.idem.spring.webflux.internal;

import dev.idem.spring.Idempotent;
import dev.idem.spring.web.internal.ResolvedBeans;
import dev.idem.spring.web.internal.Route;
import dev.idem.spring.web.internal.Routes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.reactive.result.method.RequestMappingInfo;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.util.pattern.PathPattern;
import reactor.core.publisher.Mono;

/**
 * Finds the protected route of a WebFlux request: looks its handler up in WebFlux's own request
 * mappings (so the template is the one the handler was mapped with) and asks {@link Routes}. A
 * functional route has no handler method: its path decides, against {@code idem.http.paths}.
 */
public final class ReactiveRouteResolver {

  private final ObjectProvider<RequestMappingHandlerMapping> mappings;
  private final Routes routes;
  private final ResolvedBeans<RequestMappingHandlerMapping> resolved;

  public ReactiveRouteResolver(
      ObjectProvider<RequestMappingHandlerMapping> mappings, Routes routes) {
    this.mappings = mappings;
    this.resolved = new ResolvedBeans<>(mappings);
    this.routes = routes;
  }

  /**
   * Checks every annotated handler's durations once the context has started, and learns which HTTP
   * methods besides POST and PATCH the {@link Idempotent} handlers opt in to.
   */
  public void checkHandlers() {
    Set<String> extra = new TreeSet<>();
    List<Routes.Mapping> all = new ArrayList<>();
    for (RequestMappingHandlerMapping mapping : mappings.orderedStream().toList()) {
      routes.checkAnnotations(mapping.getHandlerMethods().values());
      mapping.getHandlerMethods().forEach((info, handler) -> optedIn(info, handler, extra));
      mapping.getHandlerMethods().forEach((info, handler) -> all.add(mappingOf(info, handler)));
    }
    routes.optIn(extra);
    routes.learn(all);
  }

  private static Routes.Mapping mappingOf(RequestMappingInfo info, HandlerMethod handler) {
    Set<String> methods = new TreeSet<>();
    info.getMethodsCondition().getMethods().forEach(method -> methods.add(method.name()));
    Set<String> templates = new TreeSet<>();
    info.getPatternsCondition().getPatterns().forEach(p -> templates.add(p.getPatternString()));
    return new Routes.Mapping(handler, methods, templates);
  }

  private static void optedIn(RequestMappingInfo info, HandlerMethod handler, Set<String> extra) {
    if (!handler.hasMethodAnnotation(Idempotent.class)) {
      return;
    }
    Set<RequestMethod> methods = info.getMethodsCondition().getMethods();
    if (methods.isEmpty()) {
      extra.addAll(List.of("PUT", "DELETE"));
    }
    methods.stream().map(RequestMethod::name).forEach(extra::add);
  }

  /** The protected route of {@code exchange}, or empty when the filter lets it through. */
  public Mono<Route> resolve(ServerWebExchange exchange) {
    String method = exchange.getRequest().getMethod().name();
    if (!routes.mayProtect(method)) {
      return Mono.empty();
    }
    String path = exchange.getRequest().getPath().pathWithinApplication().value();
    return handler(exchange, resolved.get(), 0)
        .mapNotNull(handler -> routes.route(handler, method, template(exchange), path))
        .switchIfEmpty(Mono.fromSupplier(() -> routes.route(null, method, null, path)));
  }

  private static @Nullable String template(ServerWebExchange exchange) {
    Object pattern = exchange.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE);
    return pattern instanceof PathPattern p ? p.getPatternString() : null;
  }

  private static Mono<HandlerMethod> handler(
      ServerWebExchange exchange, List<RequestMappingHandlerMapping> mappings, int index) {
    if (index >= mappings.size()) {
      return Mono.empty();
    }
    return mappings
        .get(index)
        .getHandler(exchange)
        // no handler matches (a wrong media type and the like): WebFlux answers that itself
        .onErrorResume(e -> Mono.empty())
        .filter(HandlerMethod.class::isInstance)
        .cast(HandlerMethod.class)
        .switchIfEmpty(Mono.defer(() -> handler(exchange, mappings, index + 1)));
  }
}
