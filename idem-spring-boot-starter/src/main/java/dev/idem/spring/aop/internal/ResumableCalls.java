package dev.idem.spring.aop.internal;

import dev.idem.core.resume.Completer;
import dev.idem.core.resume.ResumableOperation;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ReflectionUtils;

/**
 * The resumable methods the advice knows, by operation (one method inherited by two beans is two
 * operations, each resumed on its own bean), and how a completer calls one again: through the bean
 * that registered it, so that every advice on it runs, with the mark that tells the advice it is
 * the completer's run ({@link ResumedCalls}).
 */
public final class ResumableCalls {

  private final Map<String, ResumableOperation<@Nullable Object[], @Nullable Object>> byOperation =
      new ConcurrentHashMap<>();

  /**
   * Registers {@code plan}'s method of {@code bean} (a proxy the advice advises) with {@code
   * completer}, its arguments kept by {@code arguments}.
   *
   * @throws IllegalStateException another resumable method has the same operation
   */
  public void register(Completer completer, MethodPlan plan, JsonArguments arguments, Object bean) {
    Method specific = plan.method();
    // a class-based proxy is a target class: its method dispatches to the proxy's advice; a JDK
    // proxy implements the interface's method, not the target class's
    Method callable =
        specific.getDeclaringClass().isInstance(bean)
            ? specific
            : Objects.requireNonNull(
                ReflectionUtils.findMethod(
                    bean.getClass(), specific.getName(), specific.getParameterTypes()),
                () -> specific + " is not a method of " + bean.getClass());
    ReflectionUtils.makeAccessible(callable);
    ResumableOperation<@Nullable Object[], @Nullable Object> operation;
    try {
      operation =
          completer.register(
              plan.operation(),
              arguments,
              plan.codec(),
              plan.config(),
              (values, ctx) -> {
                ResumedCalls.mark(specific);
                try {
                  return callable.invoke(bean, values);
                } catch (InvocationTargetException e) {
                  // what the method threw, as its client's call would have seen it
                  throw rethrown(e.getCause());
                } finally {
                  ResumedCalls.clear();
                }
              });
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(
          "@Idempotent(resumable = true) on " + specific + ": " + e.getMessage(), e);
    }
    byOperation.put(plan.operation(), operation);
  }

  /** The operation of a resumable plan, or null when no completer registered it. */
  public @Nullable ResumableOperation<@Nullable Object[], @Nullable Object> of(MethodPlan plan) {
    return byOperation.get(plan.operation());
  }

  private static Exception rethrown(@Nullable Throwable thrown) {
    if (thrown instanceof Error error) {
      throw error;
    }
    return thrown instanceof Exception e ? e : new UndeclaredThrowableException(thrown);
  }
}
