package dev.idem.spring.aop;

import dev.idem.spring.Idempotent;
import dev.idem.spring.aop.internal.IdempotentMethodPointcut;
import dev.idem.spring.aop.internal.MethodPlan;
import dev.idem.spring.aop.internal.StepNames;
import java.lang.reflect.Method;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * The names of the steps the application's beans can make: each {@code @Idempotent} method without
 * a key (and without a schedule's slot or an event's id in its place) is a step of the guarded call
 * that calls it, named after its operation ({@link StepNames}). Found once every singleton exists,
 * so that the {@code idempotency} endpoint can show a key's steps: a step's record is keyed by a
 * digest of its name, which the store cannot list.
 */
public final class StepMethods implements SmartInitializingSingleton {

  // the methods the advice runs on: a controller's are the HTTP filter's, and no steps
  private static final IdempotentMethodPointcut ADVISED = new IdempotentMethodPointcut();

  private final ListableBeanFactory beans;
  private final IdempotentMethodInterceptor interceptor;
  private volatile Set<String> names = Set.of();

  public StepMethods(ListableBeanFactory beans, IdempotentMethodInterceptor interceptor) {
    this.beans = beans;
    this.interceptor = interceptor;
  }

  @Override
  public void afterSingletonsInstantiated() {
    Set<String> found = new TreeSet<>();
    for (String name : beans.getBeanDefinitionNames()) {
      Class<?> type = beans.getType(name, false);
      if (type == null) {
        continue;
      }
      Class<?> target = ClassUtils.getUserClass(type);
      for (Method method : ReflectionUtils.getUniqueDeclaredMethods(target)) {
        if (AnnotatedElementUtils.hasAnnotation(method, Idempotent.class)
            && ADVISED.matches(method, target)) {
          stepName(method, target).ifPresent(found::add);
        }
      }
    }
    names = Set.copyOf(found);
  }

  private Optional<String> stepName(Method method, Class<?> target) {
    try {
      MethodPlan plan = interceptor.planOf(method, target);
      return plan.isStep() ? Optional.of(StepNames.baseOf(plan.operation())) : Optional.empty();
    } catch (RuntimeException e) {
      // a method Idem refuses says so on its first call, with its own message; no step here
      return Optional.empty();
    }
  }

  /**
   * The first step name of each step method (a method called twice in a run makes {@code name#2}
   * too); empty before the singletons exist.
   */
  public Set<String> names() {
    return names;
  }
}
