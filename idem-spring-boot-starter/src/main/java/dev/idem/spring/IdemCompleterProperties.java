package dev.idem.spring;

import java.time.Duration;

/**
 * The {@code idem.completer.*} properties: how the completer finishes the calls of resumable
 * methods ({@code @Idempotent(resumable = true)}) that nobody came back for. The defaults are the
 * core completer's own, written out for the configuration metadata.
 */
public class IdemCompleterProperties {

  /** The wait between the end of one pass and the start of the next. */
  private Duration interval = Duration.ofSeconds(10);

  /** Failed attempts after which a call is abandoned, for an operator to retry or drop. */
  private int maxAttempts = 10;

  /** The wait after a call's first failed attempt; each later one doubles it. */
  private Duration firstBackoff = Duration.ofSeconds(10);

  /** The longest wait between two attempts of a call. */
  private Duration maxBackoff = Duration.ofMinutes(10);

  /** The most calls of one method a pass takes. */
  private int batch = 100;

  public Duration getInterval() {
    return interval;
  }

  public void setInterval(Duration interval) {
    this.interval = interval;
  }

  public int getMaxAttempts() {
    return maxAttempts;
  }

  public void setMaxAttempts(int maxAttempts) {
    this.maxAttempts = maxAttempts;
  }

  public Duration getFirstBackoff() {
    return firstBackoff;
  }

  public void setFirstBackoff(Duration firstBackoff) {
    this.firstBackoff = firstBackoff;
  }

  public Duration getMaxBackoff() {
    return maxBackoff;
  }

  public void setMaxBackoff(Duration maxBackoff) {
    this.maxBackoff = maxBackoff;
  }

  public int getBatch() {
    return batch;
  }

  public void setBatch(int batch) {
    this.batch = batch;
  }
}
