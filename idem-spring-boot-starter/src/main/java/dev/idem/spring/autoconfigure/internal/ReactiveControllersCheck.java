package dev.idem.spring.autoconfigure.internal;

import dev.idem.spring.Idempotent;
import java.lang.reflect.Method;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.stereotype.Controller;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Stops a reactive web application whose controllers carry {@link Idempotent} while the WebFlux
 * filter is off ({@code idem.http.enabled=false}): no advice reaches a WebFlux handler, so such a
 * handler would run unguarded on every repeat.
 */
public final class ReactiveControllersCheck implements SmartInitializingSingleton {

  private final ListableBeanFactory beans;

  public ReactiveControllersCheck(ListableBeanFactory beans) {
    this.beans = beans;
  }

  /**
   * @throws IllegalStateException naming the first annotated handler of a reactive controller
   */
  @Override
  public void afterSingletonsInstantiated() {
    for (String name : beans.getBeanNamesForAnnotation(Controller.class)) {
      Class<?> type = beans.getType(name);
      if (type == null) {
        continue;
      }
      for (Method method :
          ReflectionUtils.getUniqueDeclaredMethods(ClassUtils.getUserClass(type))) {
        if (AnnotatedElementUtils.hasAnnotation(method, Idempotent.class)) {
          throw new IllegalStateException(
              "@Idempotent on "
                  + method.getDeclaringClass().getName()
                  + "."
                  + method.getName()
                  + " cannot be honoured: idem.http.enabled=false turns the WebFlux"
                  + " Idempotency-Key filter off; turn it on, or move the annotation to a"
                  + " service method the controller calls");
        }
      }
    }
  }
}
