package dev.idem.spring.aop;

import dev.idem.core.resume.Completer;
import dev.idem.spring.Idempotent;
import dev.idem.spring.internal.Repeating;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds the {@link Idempotent#resumable() resumable} methods of the application's beans once every
 * singleton exists, registers them with the {@link Completer}, and runs the completer's passes
 * every {@code interval} on a thread of its own while the application runs. With no resumable
 * method it does nothing: no completer is built and no thread started. A resumable method and no
 * completer (a store of the application's own with no {@code ResumeLog} bean) stop the start-up.
 */
public final class ResumableMethods implements SmartInitializingSingleton, SmartLifecycle {

  private static final Logger log = LoggerFactory.getLogger(ResumableMethods.class);

  private final ListableBeanFactory beans;
  private final IdempotentMethodInterceptor interceptor;
  private final Supplier<@Nullable Completer> completers;
  private final Duration interval;
  private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();
  private volatile @Nullable Completer completer;
  private final Repeating runs;

  /**
   * @param completers the completer, built only when a resumable method is found; null when the
   *     application has none
   * @param interval how long a pass waits after the previous one ended
   * @param threads makes the thread that runs the passes
   */
  public ResumableMethods(
      ListableBeanFactory beans,
      IdempotentMethodInterceptor interceptor,
      Supplier<@Nullable Completer> completers,
      Duration interval,
      ThreadFactory threads) {
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException(
          "idem.completer.interval must be positive, was " + interval);
    }
    this.beans = beans;
    this.interceptor = interceptor;
    this.completers = completers;
    this.interval = interval;
    this.runs = new Repeating(threads, "idem-completer", interval, this::runOnce);
  }

  @Override
  public void afterSingletonsInstantiated() {
    List<Registration> found = new ArrayList<>();
    for (String name : beans.getBeanDefinitionNames()) {
      Class<?> type = beans.getType(name, false);
      if (type != null && hasResumable(ClassUtils.getUserClass(type))) {
        Object bean = beans.getBean(name);
        Class<?> target = AopUtils.getTargetClass(bean);
        for (Method method : ReflectionUtils.getUniqueDeclaredMethods(target)) {
          if (isResumable(method)) {
            found.add(new Registration(bean, method, target));
          }
        }
      }
    }
    if (found.isEmpty()) {
      return;
    }
    Completer built = completers.get();
    if (built == null) {
      throw new IllegalStateException(
          found.get(0).method()
              + " is @Idempotent(resumable = true), but no completer can be built: the store is the"
              + " application's own and there is no ResumeLog bean beside it. Define a ResumeLog"
              + " bean on the store's storage (JdbcResumeLog, RedisResumeLog, InMemoryResumeLog)");
    }
    for (Registration r : found) {
      interceptor.register(built, r.bean(), r.method(), r.target());
    }
    completer = built;
    log.info(
        "Idem's completer finishes the calls of {} resumable method(s) nobody came back for,"
            + " every {} (idem.completer.interval)",
        found.size(),
        interval);
  }

  private record Registration(Object bean, Method method, Class<?> target) {}

  private static boolean hasResumable(Class<?> type) {
    for (Method method : ReflectionUtils.getUniqueDeclaredMethods(type)) {
      if (isResumable(method)) {
        return true;
      }
    }
    return false;
  }

  private static boolean isResumable(Method method) {
    Idempotent idempotent = AnnotatedElementUtils.findMergedAnnotation(method, Idempotent.class);
    return idempotent != null && idempotent.resumable();
  }

  /** The completer, once a resumable method was found; empty before that, or without one. */
  public Optional<Completer> completer() {
    return Optional.ofNullable(completer);
  }

  /**
   * Runs one pass now, as the schedule does: what it did is counted and logged, and a failure to
   * read the log is logged and counted; the next pass tries again.
   *
   * @return the pass, or {@link Completer.Pass#NONE} without a completer or after a failure
   */
  public Completer.Pass runOnce() {
    Completer running = completer;
    if (running == null) {
      return Completer.Pass.NONE;
    }
    try {
      Completer.Pass pass = running.runOnce();
      count("finished", pass.finished());
      count("replayed", pass.replayed());
      count("busy", pass.busy());
      count("failed", pass.failed());
      count("abandoned", pass.abandoned());
      count("dropped", pass.dropped());
      if (pass.finished() + pass.failed() + pass.abandoned() > 0) {
        log.info("completer pass: {}", pass);
      }
      return pass;
    } catch (RuntimeException | Error e) {
      // the schedule must outlive whatever a pass meets: a task that throws is never run again
      count("error", 1);
      log.error("A completer pass failed; the next pass tries again", e);
      return Completer.Pass.NONE;
    }
  }

  private void count(String outcome, int n) {
    if (n > 0) {
      counts.computeIfAbsent(outcome, o -> new AtomicLong()).addAndGet(n);
    }
  }

  /**
   * How many calls the passes since start-up ended with {@code outcome} (finished, replayed, busy,
   * failed, abandoned, dropped), or, for {@code error}, how many passes failed (the log could not
   * be read or written); the calls a failed pass had taken are counted by the next.
   */
  public long count(String outcome) {
    AtomicLong n = counts.get(outcome);
    return n == null ? 0 : n.get();
  }

  @Override
  public void start() {
    if (completer == null) {
      return;
    }
    runs.start();
  }

  @Override
  public void stop() {
    runs.stop();
  }

  @Override
  public boolean isRunning() {
    return runs.isRunning();
  }
}
