package dev.idem.spring.aop.internal;

import java.lang.reflect.Method;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.util.ReflectionUtils;

/**
 * Stands in for the bean advice when Jackson 3 is missing: a bean with {@code @Idempotent} methods
 * fails at startup with a message saying what to add, instead of running its methods unguarded.
 */
public final class JsonMissingCheck implements BeanPostProcessor {

  private final IdempotentMethodPointcut pointcut = new IdempotentMethodPointcut();

  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    Class<?> type = AopUtils.getTargetClass(bean);
    ReflectionUtils.doWithMethods(
        type,
        method -> {
          throw new IllegalStateException(
              "@Idempotent on "
                  + type.getSimpleName()
                  + "."
                  + method.getName()
                  + " needs Jackson 3 (tools.jackson.core:jackson-databind) on the class path"
                  + " to store its return value");
        },
        (Method method) -> pointcut.matches(method, type));
    return bean;
  }
}
