package dev.idem.spring.aop.internal;

import dev.idem.spring.Idempotent;
import java.lang.reflect.Method;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.stereotype.Controller;

/**
 * Matches methods annotated with {@link Idempotent} (on the class's method or on a method it
 * implements), except in controllers: a web handler's key comes from the request, and the HTTP
 * filter guards it. A controller's event listener is no handler, and is matched.
 */
public final class IdempotentMethodPointcut extends StaticMethodMatcherPointcut {

  @Override
  public boolean matches(Method method, Class<?> targetClass) {
    Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
    if (AnnotatedElementUtils.hasAnnotation(targetClass, Controller.class)
        && !EventListenerKeys.isListener(specific)) {
      return false;
    }
    return AnnotatedElementUtils.hasAnnotation(specific, Idempotent.class)
        || AnnotatedElementUtils.hasAnnotation(method, Idempotent.class);
  }
}
