package dev.idem.spring.aop.internal;

import dev.idem.spring.Idempotent;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * {@code idem.scheduled.missed=run-latest}: once the application is ready, calls each cron method
 * keyed by its slot once, through its proxy, on a thread of its own. The call stands for the latest
 * slot: it runs when no node ran that slot (this node was down when it came), and replays when one
 * did. Fixed rates and delays need none of this: Spring fires them at start.
 */
public final class ScheduledCatchUp implements ApplicationListener<ApplicationReadyEvent> {

  private static final Logger log = LoggerFactory.getLogger(ScheduledCatchUp.class);

  private final BooleanSupplier runLatest;

  /**
   * @param runLatest whether {@code idem.scheduled.missed} is {@code run-latest}, read when the
   *     application is ready
   */
  public ScheduledCatchUp(BooleanSupplier runLatest) {
    this.runLatest = runLatest;
  }

  @Override
  public void onApplicationEvent(ApplicationReadyEvent event) {
    if (!runLatest.getAsBoolean()) {
      return;
    }
    ConfigurableApplicationContext context = event.getApplicationContext();
    List<Runnable> calls = new ArrayList<>();
    for (String name : context.getBeanDefinitionNames()) {
      Class<?> type = context.getBeanFactory().getType(name, false);
      if (type == null) {
        continue;
      }
      if (Proxy.isProxyClass(type)) {
        // an interface-based proxy: the annotations are on the class behind it
        type = AopProxyUtils.ultimateTargetClass(context.getBean(name));
      }
      for (Method method :
          ReflectionUtils.getUniqueDeclaredMethods(ClassUtils.getUserClass(type))) {
        if (cronKeyedBySlot(method, context)) {
          Method called = interfaceMethod(context, name, method);
          calls.add(() -> call(context, name, called));
        }
      }
    }
    if (!calls.isEmpty()) {
      Thread thread = new Thread(() -> calls.forEach(Runnable::run), "idem-scheduled-catch-up");
      thread.setDaemon(true);
      thread.start();
    }
  }

  // a cron (placeholders resolved) that fires by itself, on a method keyed by its slot
  private static boolean cronKeyedBySlot(Method method, ConfigurableApplicationContext context) {
    Idempotent idempotent = AnnotatedElementUtils.findMergedAnnotation(method, Idempotent.class);
    if (idempotent == null || !idempotent.key().isBlank() || !ScheduledSlot.isScheduled(method)) {
      return false;
    }
    boolean cron =
        AnnotatedElementUtils.getMergedRepeatableAnnotations(method, Scheduled.class).stream()
            .anyMatch(s -> !s.cron().isEmpty());
    try {
      return cron
          && ScheduledSlot.of(
                  method.getName(), method, EmbeddedValues.resolver(context.getBeanFactory()))
              .fires(Instant.now());
    } catch (RuntimeException e) {
      return false; // refused at start-up already, with the reason
    }
  }

  // the method to call on the bean as the container holds it: an interface proxy's own
  private static Method interfaceMethod(
      ConfigurableApplicationContext context, String name, Method method) {
    Object bean = context.getBean(name);
    if (!Proxy.isProxyClass(bean.getClass())) {
      return method;
    }
    for (Class<?> type : ClassUtils.getAllInterfacesForClass(bean.getClass())) {
      Method declared = ClassUtils.getMethodIfAvailable(type, method.getName());
      if (declared != null) {
        return declared;
      }
    }
    return method;
  }

  private static void call(ConfigurableApplicationContext context, String name, Method method) {
    try {
      ReflectionUtils.makeAccessible(method);
      method.invoke(context.getBean(name));
    } catch (InvocationTargetException e) {
      log.warn("the catch-up run of {} failed", method, e.getTargetException());
    } catch (ReflectiveOperationException | RuntimeException e) {
      log.warn("could not call {} to catch up its latest slot", method, e);
    }
  }
}
