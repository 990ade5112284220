package dev.idem.spring.aop.internal;

import dev.idem.spring.Idempotent;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import org.springframework.core.DefaultParameterNameDiscoverer;

/**
 * The default fingerprint of an {@link Idempotent} bean method: every argument, so that a repeat of
 * a key with other arguments ({@code settle("A-1", 1000)} after {@code settle("A-1", 10)}) is key
 * reuse, never a replay of the first call's result.
 */
public final class ComparedArguments {

  private static final DefaultParameterNameDiscoverer NAMES = new DefaultParameterNameDiscoverer();

  private ComparedArguments() {}

  /** The method's parameter names, or {@code p0}, {@code p1} where the class file has none. */
  static List<String> names(Method method) {
    @Nullable String[] discovered = NAMES.getParameterNames(method);
    List<String> names = new ArrayList<>();
    for (int i = 0; i < method.getParameterCount(); i++) {
      String name = discovered != null ? discovered[i] : null;
      names.add(name != null ? name : "p" + i);
    }
    return List.copyOf(names);
  }

  /**
   * What the fingerprint is made of: the argument itself when there is one, else the arguments by
   * parameter name, in order.
   */
  public static @Nullable Object of(MethodPlan plan, @Nullable Object[] arguments) {
    List<String> names = plan.comparedArguments();
    if (names.size() == arguments.length) {
      if (names.size() == 1) {
        return arguments[0];
      }
      Map<String, Object> byName = new LinkedHashMap<>();
      for (int i = 0; i < names.size(); i++) {
        byName.put(names.get(i), arguments[i]);
      }
      return byName;
    }
    // some parameters are left out (a tool's ToolContext): find the others by name
    List<String> all = names(plan.method());
    if (names.size() == 1) {
      return arguments[all.indexOf(names.get(0))];
    }
    Map<String, Object> byName = new LinkedHashMap<>();
    for (int i = 0; i < all.size(); i++) {
      if (names.contains(all.get(i))) {
        byName.put(all.get(i), arguments[i]);
      }
    }
    return byName;
  }

  /**
   * Refuses, at start-up, a method whose arguments are compared by default but one of which cannot
   * be (a callback or a stream, which no fingerprint can tell apart), and a method that names a
   * fingerprint while saying arguments are not compared.
   *
   * @throws IllegalStateException naming the method, the parameter and the fix
   */
  static void check(String operation, Method method, Idempotent idempotent) {
    if (!idempotent.fingerprint().isBlank()) {
      if (!idempotent.compareArguments()) {
        throw new IllegalStateException(
            "@Idempotent on "
                + operation
                + " names a fingerprint and compareArguments = false; keep one of them");
      }
      return;
    }
    if (!idempotent.compareArguments()) {
      return;
    }
    List<String> names = names(method);
    Parameter[] parameters = method.getParameters();
    for (int i = 0; i < parameters.length; i++) {
      Class<?> type = parameters[i].getType();
      if (isCallback(type) || isOneShot(type)) {
        throw new IllegalStateException(
            "@Idempotent on "
                + operation
                + " compares every argument by default, and its parameter "
                + names.get(i)
                + " ("
                + type.getSimpleName()
                + ") cannot be compared; name what identifies the call with fingerprint ="
                + " \"#...\", or set compareArguments = false to let the key alone name it");
      }
    }
  }

  // Values that writing them as JSON would drain or open (a stream, an iterator, an upload), or
  // whose content is not there yet (a future, a publisher): the method would then get them spent.
  private static final List<String> ONE_SHOT =
      List.of(
          "java.io.InputStream",
          "java.io.Reader",
          "java.util.stream.BaseStream",
          "java.util.Iterator",
          "java.util.Spliterator",
          "java.util.Enumeration",
          "java.util.concurrent.Future",
          "java.util.concurrent.CompletionStage",
          "org.reactivestreams.Publisher",
          "org.springframework.core.io.InputStreamSource");

  private static boolean isOneShot(Class<?> type) {
    for (Class<?> t = type; t != null; t = t.getSuperclass()) {
      if (ONE_SHOT.contains(t.getName()) || anyInterfaceIsOneShot(t)) {
        return true;
      }
    }
    return false;
  }

  private static boolean anyInterfaceIsOneShot(Class<?> type) {
    for (Class<?> i : type.getInterfaces()) {
      if (ONE_SHOT.contains(i.getName()) || anyInterfaceIsOneShot(i)) {
        return true;
      }
    }
    return false;
  }

  private static boolean isCallback(Class<?> type) {
    return type.isInterface()
        && (type.isAnnotationPresent(FunctionalInterface.class)
            || type == Runnable.class
            || type == Callable.class
            || type.getPackageName().equals("java.util.function"));
  }

  /** The message of an argument the mapper could not write, with the fix. */
  public static String unwritable(MethodPlan plan, RuntimeException cause) {
    return "@Idempotent on "
        + plan.operation()
        + " compares every argument by default, and one could not be written as JSON ("
        + cause.getMessage()
        + "); name what identifies the call with fingerprint = \"#...\", or set"
        + " compareArguments = false";
  }
}
