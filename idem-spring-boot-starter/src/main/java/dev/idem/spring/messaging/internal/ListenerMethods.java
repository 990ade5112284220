package dev.idem.spring.messaging.internal;

import dev.idem.spring.messaging.IdempotentListener;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.List;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.util.ReflectionUtils;

/**
 * Finds the {@code @IdempotentListener} methods of one broker: those whose method or class also
 * carries that broker's listener annotation, so that with two brokers on the class path each method
 * gets only its own broker's advice.
 */
public final class ListenerMethods {

  /** The listener annotations whose methods the starter advises, by name: either may be absent. */
  private static final List<String> BROKERS =
      List.of(
          "org.springframework.amqp.rabbit.annotation.RabbitListener",
          "org.springframework.kafka.annotation.KafkaListener");

  private ListenerMethods() {}

  /** Matches {@code @IdempotentListener} methods that are {@code broker} listeners. */
  public static Pointcut of(Class<? extends Annotation> broker) {
    return new StaticMethodMatcherPointcut() {
      @Override
      public boolean matches(Method method, Class<?> targetClass) {
        Method target = AopUtils.getMostSpecificMethod(method, targetClass);
        return annotation(target) != null
            && (AnnotatedElementUtils.hasAnnotation(target, broker)
                || AnnotatedElementUtils.hasAnnotation(target.getDeclaringClass(), broker));
      }
    };
  }

  /**
   * Refuses a bean with an {@code @IdempotentListener} method that no supported broker calls: it
   * would run unguarded.
   *
   * @throws IllegalStateException naming the method
   */
  public static void checkBrokers(Class<?> type) {
    ReflectionUtils.doWithMethods(
        type,
        method -> {
          if (annotation(method) != null
              && BROKERS.stream()
                  .noneMatch(
                      broker ->
                          MergedAnnotations.from(method).isPresent(broker)
                              || MergedAnnotations.from(method.getDeclaringClass())
                                  .isPresent(broker))) {
            throw new IllegalStateException(
                "@IdempotentListener "
                    + method
                    + " is neither a @RabbitListener nor a @KafkaListener method, so nothing"
                    + " would guard it; Idem supports these two listener annotations");
          }
        });
  }

  /** The method's {@code @IdempotentListener}, or null. */
  public static @Nullable IdempotentListener annotation(Method method) {
    return AnnotatedElementUtils.findMergedAnnotation(method, IdempotentListener.class);
  }

  /**
   * The consumer group that {@code method}'s annotation names, placeholders resolved.
   *
   * @throws IllegalStateException when the method has no annotation or the group is blank
   */
  public static String group(Method method, ListenerBeans engine) {
    IdempotentListener annotation = annotation(method);
    if (annotation == null) {
      throw new IllegalStateException(method + " has no @IdempotentListener");
    }
    String group = engine.beanFactory().resolveEmbeddedValue(annotation.value());
    if (group == null || group.isBlank()) {
      throw new IllegalStateException("@IdempotentListener on " + method + " names no group");
    }
    return group;
  }

  /**
   * Runs the advised method, passing on what it throws; a checked exception its signature does not
   * declare comes as an {@link UndeclaredThrowableException}.
   */
  public static @Nullable Object proceed(MethodInvocation invocation) throws Exception {
    try {
      return invocation.proceed();
    } catch (Exception | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new UndeclaredThrowableException(t);
    }
  }

  /** The failure of an advised method called outside a listener container, which it needs. */
  public static IllegalStateException outsideContainer(Method method, String what) {
    return new IllegalStateException(
        "@IdempotentListener "
            + method
            + " was called outside a listener container made by a container factory bean;"
            + " it needs "
            + what);
  }
}
