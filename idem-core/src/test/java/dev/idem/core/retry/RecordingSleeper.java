package dev.idem.core.retry;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A sleeper that records each delay and returns at once. */
final class RecordingSleeper implements Sleeper {

  private final List<Duration> delays = new CopyOnWriteArrayList<>();

  @Override
  public void sleep(Duration duration) {
    delays.add(duration);
  }

  List<Duration> delays() {
    return List.copyOf(delays);
  }
}
