package dev.idem.spring.aop.internal;

import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.springframework.core.GenericTypeResolver;
import org.springframework.core.ResolvableType;
import org.springframework.util.ClassUtils;

/**
 * How an {@code @Idempotent} method hands back its result: now, or later through a {@code
 * CompletableFuture}, a {@code Mono} or a {@code Flux}, whose end settles the outcome.
 */
public enum ResultShape {
  /** The return value is the result. */
  NOW,
  /** A {@code CompletableFuture} or {@code CompletionStage} that ends with the result. */
  STAGE,
  /** A Reactor {@code Mono}: its value, or none, is the result. */
  MONO,
  /** A Reactor {@code Flux}: its elements, collected into a bounded list, are the result. */
  FLUX;

  private static final String MONO_TYPE = "reactor.core.publisher.Mono";
  private static final String FLUX_TYPE = "reactor.core.publisher.Flux";

  /**
   * Types of a result that is not there yet when the method returns, by name: some may be absent.
   */
  private static final List<String> LATER =
      List.of(
          "java.util.concurrent.Future",
          "java.util.concurrent.CompletionStage",
          "java.util.concurrent.Flow$Publisher",
          "org.reactivestreams.Publisher");

  /**
   * The shape of {@code method}'s result.
   *
   * @throws IllegalStateException for a result that ends later in a way the advice cannot follow (a
   *     plain {@code Future}, a publisher other than Reactor's), since its work would run after the
   *     claim, unguarded
   */
  static ResultShape of(String operation, Method method) {
    Class<?> returned = method.getReturnType();
    ClassLoader loader = method.getDeclaringClass().getClassLoader();
    if (returned == CompletionStage.class || returned == CompletableFuture.class) {
      return STAGE;
    }
    if (is(MONO_TYPE, returned, loader)) {
      return MONO;
    }
    if (is(FLUX_TYPE, returned, loader)) {
      return FLUX;
    }
    for (String later : LATER) {
      if (is(later, returned, loader)) {
        throw new IllegalStateException(
            "@Idempotent on "
                + operation
                + " returns "
                + returned.getSimpleName()
                + ", whose work runs after the method returned, where the advice cannot follow it:"
                + " it would run unguarded. Return the result itself, a CompletableFuture, a Mono"
                + " or a Flux");
      }
    }
    return NOW;
  }

  /**
   * The type the codec stores for {@code method} called on {@code userClass}: the return type, the
   * value type of a stage or {@code Mono}, or a list of a {@code Flux}'s elements.
   */
  Type storedType(Method method, Class<?> userClass) {
    Type type = GenericTypeResolver.resolveType(method.getGenericReturnType(), userClass);
    if (this == NOW) {
      return type;
    }
    Type value = valueType(type);
    if (this == FLUX) {
      return ResolvableType.forClassWithGenerics(List.class, ResolvableType.forType(value))
          .getType();
    }
    return value;
  }

  private static Type valueType(Type type) {
    if (type instanceof ParameterizedType parameterized
        && parameterized.getActualTypeArguments().length == 1) {
      return parameterized.getActualTypeArguments()[0];
    }
    return Object.class;
  }

  private static boolean is(String name, Class<?> returned, ClassLoader loader) {
    return ClassUtils.isPresent(name, loader)
        && ClassUtils.resolveClassName(name, loader).isAssignableFrom(returned);
  }
}
