package dev.idem.spring;

import dev.idem.core.AsyncWork;
import dev.idem.core.Work;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Counts the work running right now under a claimed key, across the HTTP filter and the bean
 * advice: the {@code idem.inflight} gauge. Repeats that are replayed or refused are not work.
 */
public final class InFlightWork {

  private final AtomicInteger running = new AtomicInteger();

  /** How many works are running now. */
  public int count() {
    return running.get();
  }

  /** {@code work}, counted from its start until its stage ends. */
  public <T extends @Nullable Object> AsyncWork<T> trackAsync(AsyncWork<T> work) {
    return context -> {
      running.incrementAndGet();
      CompletionStage<T> stage;
      try {
        stage = work.start(context);
      } catch (Exception | Error e) {
        running.decrementAndGet();
        throw e;
      }
      if (stage == null) {
        running.decrementAndGet();
        throw new NullPointerException("the work for " + context.key() + " returned no stage");
      }
      return stage.whenComplete((value, failure) -> running.decrementAndGet());
    };
  }

  /** {@code work}, counted while it runs. */
  public <T extends @Nullable Object, E extends Exception> Work<T, E> track(Work<T, E> work) {
    return context -> {
      running.incrementAndGet();
      try {
        return work.run(context);
      } finally {
        running.decrementAndGet();
      }
    };
  }
}
