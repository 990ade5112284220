package dev.idem.spring.client;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;

/**
 * A backoff that waits as the last answer's {@code Retry-After} asks (up to a cap) when it said
 * something, and as its delegate says otherwise; it stops when the delegate stops.
 */
final class RetryAfterBackOff implements BackOff {

  private final BackOff delegate;
  private final AtomicReference<@Nullable Duration> retryAfter;
  private final Duration cap;

  RetryAfterBackOff(
      BackOff delegate, AtomicReference<@Nullable Duration> retryAfter, Duration cap) {
    this.delegate = delegate;
    this.retryAfter = retryAfter;
    this.cap = cap;
  }

  @Override
  public BackOffExecution start() {
    BackOffExecution execution = delegate.start();
    return () -> {
      long next = execution.nextBackOff();
      Duration asked = retryAfter.getAndSet(null);
      if (next == BackOffExecution.STOP || asked == null) {
        return next;
      }
      return Math.min(asked.toMillis(), cap.toMillis());
    };
  }
}
