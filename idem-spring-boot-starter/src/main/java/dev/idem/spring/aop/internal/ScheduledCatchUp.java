package dev.idem.spring.aop.internal;

import dev.idem.spring.Idempotent;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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

  @Override
  public void onApplicationEvent(ApplicationReadyEvent event) {
    ConfigurableApplicationContext context = event.getApplicationContext();
    List<Runnable> calls = new ArrayList<>();
    for (String name : context.getBeanDefinitionNames()) {
      Class<?> type = context.getBeanFactory().getType(name, false);
      if (type == null) {
        continue;
      }
      for (Method method :
          ReflectionUtils.getUniqueDeclaredMethods(ClassUtils.getUserClass(type))) {
        if (cronKeyedBySlot(method)) {
          calls.add(() -> call(context, name, method));
        }
      }
    }
    if (!calls.isEmpty()) {
      Thread thread = new Thread(() -> calls.forEach(Runnable::run), "idem-scheduled-catch-up");
      thread.setDaemon(true);
      thread.start();
    }
  }

  private static boolean cronKeyedBySlot(Method method) {
    Idempotent idempotent = AnnotatedElementUtils.findMergedAnnotation(method, Idempotent.class);
    if (idempotent == null || !idempotent.key().isBlank() || !ScheduledSlot.isScheduled(method)) {
      return false;
    }
    return AnnotatedElementUtils.getMergedRepeatableAnnotations(method, Scheduled.class).stream()
        .anyMatch(s -> !s.cron().isEmpty() && !Scheduled.CRON_DISABLED.equals(s.cron()));
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
