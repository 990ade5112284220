package dev.idem.spring.web.internal;

import dev.idem.spring.Idempotent;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.springframework.http.server.PathContainer;
import org.springframework.util.ClassUtils;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.util.pattern.PathPattern;

/**
 * What the filter protects, worked out once at start-up from Spring MVC's handler methods: the HTTP
 * methods besides POST and PATCH that an {@link Idempotent} handler opts in to, and a refusal of
 * every protected handler that answers asynchronously. Such a handler returns before its answer is
 * written, so the filter would store an empty answer and replay it forever; nothing protected may
 * be silently unprotected, so the application does not start.
 */
final class ProtectedRoutes {

  private static final List<String> ASYNC_TYPES =
      List.of(
          "java.util.concurrent.CompletionStage",
          "java.util.concurrent.Future",
          "java.util.concurrent.Callable",
          "java.util.concurrent.Flow$Publisher",
          "org.reactivestreams.Publisher",
          "org.springframework.web.context.request.async.DeferredResult",
          "org.springframework.web.context.request.async.WebAsyncTask",
          "org.springframework.web.servlet.mvc.method.annotation.ResponseBodyEmitter",
          "org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody");

  private ProtectedRoutes() {}

  /**
   * Checks {@code handlers} and returns the extra HTTP methods that annotated handlers opt in to.
   *
   * @throws IllegalStateException naming the first protected handler that answers asynchronously
   */
  static Set<String> check(
      Map<RequestMappingInfo, HandlerMethod> handlers, List<PathPattern> paths) {
    Set<String> extra = new TreeSet<>();
    for (Map.Entry<RequestMappingInfo, HandlerMethod> entry : handlers.entrySet()) {
      HandlerMethod handler = entry.getValue();
      Set<RequestMethod> methods = entry.getKey().getMethodsCondition().getMethods();
      boolean annotated = handler.hasMethodAnnotation(Idempotent.class);
      if (!annotated && !(byDefaultMethod(methods) && byPath(entry.getKey(), paths))) {
        continue;
      }
      Class<?> returned = handler.getReturnType().getParameterType();
      String async = asyncType(returned);
      if (async != null) {
        throw new IllegalStateException(
            "the Idempotency-Key filter cannot protect "
                + handler
                + ": it returns "
                + returned.getName()
                + " (a "
                + async
                + "), whose answer is written after the filter has stored it; return the"
                + " answer itself, or leave the route unprotected");
      }
      if (annotated) {
        if (methods.isEmpty()) {
          extra.addAll(List.of("PUT", "DELETE"));
        }
        methods.stream().map(RequestMethod::name).forEach(extra::add);
      }
    }
    extra.removeAll(Routes.DEFAULT_METHODS);
    return Set.copyOf(extra);
  }

  /** The names of {@code methods}, in upper case. */
  static Set<String> methods(Set<RequestMethod> methods) {
    Set<String> names = new TreeSet<>();
    methods.forEach(method -> names.add(method.name()));
    return names;
  }

  private static boolean byDefaultMethod(Set<RequestMethod> methods) {
    return methods.isEmpty()
        || methods.contains(RequestMethod.POST)
        || methods.contains(RequestMethod.PATCH);
  }

  private static boolean byPath(RequestMappingInfo info, List<PathPattern> paths) {
    for (String pattern : info.getPatternValues()) {
      PathContainer path = PathContainer.parsePath(pattern);
      for (PathPattern configured : paths) {
        if (configured.matches(path)) {
          return true;
        }
      }
    }
    return false;
  }

  private static @Nullable String asyncType(Class<?> returned) {
    ClassLoader loader = ProtectedRoutes.class.getClassLoader();
    for (String name : ASYNC_TYPES) {
      if (ClassUtils.isPresent(name, loader)
          && ClassUtils.resolveClassName(name, loader).isAssignableFrom(returned)) {
        return name;
      }
    }
    return null;
  }
}
