package dev.idem.spring.web.internal;

import dev.idem.core.IdempotencyConfig;
import dev.idem.core.store.ClaimRequest;
import dev.idem.spring.IdemPolicies;
import dev.idem.spring.Idempotent;
import java.lang.reflect.Method;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
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

  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(Routes.class);

  /** The methods protected by default, and the only ones that path patterns protect. */
  static final Set<String> DEFAULT_METHODS = Set.of("POST", "PATCH");

  // an annotated handler mapped without methods protects these
  private static final Set<String> ANY_METHOD_OPTS_IN = Set.of("POST", "PATCH", "PUT", "DELETE");
  private static final Comparator<String> FIRST_ROUTE =
      Comparator.comparing((String name) -> !name.startsWith("POST "))
          .thenComparing(Comparator.naturalOrder());

  private final List<PathPattern> paths;
  private final IdemPolicies policies;
  private volatile Set<String> extraMethods = Set.of();
  // One Route per handler (and template and method), or per configured path: its config is built
  // once, not per request.
  private final Map<List<Object>, Route> cache = new ConcurrentHashMap<>();
  private volatile int scopeCap = ClaimRequest.NO_CAP;
  // The one operation of each handler reached on several routes or methods.
  private volatile Map<Handler, String> operations = Map.of();

  public Routes(List<String> paths, IdemPolicies policies) {
    this.paths = paths.stream().map(PathPatternParser.defaultInstance::parse).toList();
    this.policies = policies;
  }

  List<PathPattern> paths() {
    return paths;
  }

  /** Protects, besides POST and PATCH, the HTTP methods {@code extra} that handlers opted in to. */
  public void optIn(Set<String> extra) {
    Set<String> methods = new TreeSet<>(extra);
    methods.removeAll(DEFAULT_METHODS);
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
   * One handler's request mapping, as either stack declares it.
   *
   * @param methods its HTTP methods in upper case; empty for any
   * @param templates its route templates
   */
  public record Mapping(HandlerMethod handler, Set<String> methods, Set<String> templates) {}

  /**
   * Learns every handler's mappings, so that a handler reached on several routes or HTTP methods
   * runs under one operation whichever brought the request (one key, one operation): the name of
   * its first protected route, POST before other methods, then in alphabetical order.
   *
   * @throws IllegalStateException naming a handler without {@link Idempotent} that {@code
   *     idem.http.paths} protect on some of its POST or PATCH routes and not on others
   */
  public void learn(Collection<Mapping> mappings) {
    Map<Handler, SortedSet<String>> names = new HashMap<>();
    Map<Handler, Set<String>> unprotected = new HashMap<>();
    for (Mapping mapping : mappings) {
      boolean annotated = mapping.handler().hasMethodAnnotation(Idempotent.class);
      Set<String> methods =
          !mapping.methods().isEmpty()
              ? mapping.methods()
              : annotated ? ANY_METHOD_OPTS_IN : DEFAULT_METHODS;
      Handler method = Handler.of(mapping.handler());
      for (String httpMethod : methods) {
        for (String template : mapping.templates()) {
          String name = operationOf(mapping.handler(), httpMethod, template);
          if (name != null) {
            names.computeIfAbsent(method, m -> new TreeSet<>(FIRST_ROUTE)).add(name);
          } else if (!annotated && DEFAULT_METHODS.contains(httpMethod)) {
            unprotected.computeIfAbsent(method, m -> new LinkedHashSet<>()).add(template);
          }
        }
      }
    }
    for (Map.Entry<Handler, Set<String>> entry : unprotected.entrySet()) {
      if (names.containsKey(entry.getKey())) {
        throw new IllegalStateException(
            "idem.http.paths protect "
                + entry.getKey()
                + " on "
                + names.get(entry.getKey())
                + " but not on "
                + entry.getValue()
                + ", so one key could run it once per route; annotate it with @Idempotent, or"
                + " make idem.http.paths cover all its routes or none");
      }
    }
    Map<Handler, String> learned = new HashMap<>();
    names.forEach(
        (handler, all) -> {
          if (all.size() > 1) {
            learned.put(handler, all.first());
            warnOfMergedPolicies(handler, all);
          }
        });
    operations = Map.copyOf(learned);
    cache.clear();
  }

  // A handler as its class and method: two controllers that inherit one method are two handlers.
  private record Handler(Class<?> type, Method method) {
    static Handler of(HandlerMethod handler) {
      return new Handler(handler.getBeanType(), handler.getMethod());
    }

    @Override
    public String toString() {
      return type.getName() + "." + method.getName() + "()";
    }
  }

  // A policy named after a route that now runs under its handler's first route no longer applies.
  private void warnOfMergedPolicies(Handler handler, SortedSet<String> all) {
    for (String name : all.tailSet(all.first())) {
      if (!name.equals(all.first()) && policies.hasPolicy(name)) {
        log.warn(
            "{} is reached on {} and runs under one operation, {}: idem.policies.{} no longer"
                + " applies; name the policy {}, or set @Idempotent(operation = ...)",
            handler,
            all,
            all.first(),
            name,
            all.first());
      }
    }
  }

  // the name a request with this method and template would run under, or null when unprotected
  private @Nullable String operationOf(HandlerMethod handler, String method, String template) {
    Idempotent idempotent = handler.getMethodAnnotation(Idempotent.class);
    if (idempotent != null) {
      return idempotent.operation().isEmpty() ? method + " " + template : idempotent.operation();
    }
    if (!DEFAULT_METHODS.contains(method)) {
      return null;
    }
    PathContainer path = PathContainer.parsePath(template);
    for (PathPattern pattern : paths) {
      if (pattern.matches(path)) {
        return method + " " + pattern.getPatternString();
      }
    }
    return null;
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
    return DEFAULT_METHODS.contains(method) || extraMethods.contains(method);
  }

  /**
   * @param template the handler's route template, or null when the framework did not name one
   * @param path what {@code idem.http.paths} are matched against
   */
  public @Nullable Route route(
      @Nullable HandlerMethod handler, String method, @Nullable String template, String path) {
    Idempotent idempotent = handler == null ? null : handler.getMethodAnnotation(Idempotent.class);
    String learned = handler == null ? null : operations.get(Handler.of(handler));
    if (idempotent != null) {
      if (template == null) {
        // keyed by the client's own path, a cache would grow with every path sent
        return annotated(idempotent, learned, method, path);
      }
      return cache.computeIfAbsent(
          List.of(handler, method, template),
          k -> annotated(idempotent, learned, method, template));
    }
    if (!DEFAULT_METHODS.contains(method)) {
      return null;
    }
    PathContainer container = PathContainer.parsePath(path);
    for (PathPattern pattern : paths) {
      if (pattern.matches(container)) {
        String operation = learned != null ? learned : method + " " + pattern.getPatternString();
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

  private Route annotated(
      Idempotent idempotent, @Nullable String learned, String httpMethod, String template) {
    String operation =
        learned != null
            ? learned
            : idempotent.operation().isEmpty()
                ? httpMethod + " " + template
                : idempotent.operation();
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
