package dev.idem.core.resume;

import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.ResultCodec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finishes resumable calls that nobody came back for. Each {@link #runOnce pass} takes the due
 * entries of every operation registered here from the {@link ResumeLog} and runs each call again
 * through the engine, under its own key and fingerprint, as its client's retry would: the steps
 * that ended are replayed, the rest run, and the answer is stored for the client to get when it
 * comes back. An entry is due once its call's lease could have ended, so a live call is never
 * disturbed, and a call still in flight is left alone. A run never waits for a call in flight and
 * never runs without its claim, whatever the operation's config says about failing open; a claim
 * the store could not answer is no attempt of the call's, and the entry waits for a later pass.
 *
 * <p>Safe on many nodes: taking an entry makes it due again only after twice its lease, so other
 * completers pass it over, and the key's claim lets one run at a time whatever happens. A call that
 * fails retryably (an {@code Error} of its work included, but for running out of memory) is tried
 * again after a backoff that doubles, up to {@code maxAttempts}; then it is abandoned, and so is at
 * once a call whose input its codec cannot read back: it stays in the log, where {@link #abandoned}
 * lists it for an operator to {@link #retry} or {@link #drop}, until its entry expires with the
 * retention of its operation.
 *
 * <p>Nothing here runs by itself: call {@link #runOnce} on a schedule (the Spring starter does).
 */
public final class Completer {

  /**
   * Attempts before a call is abandoned, unless set: ten, which with the default backoff (10 s,
   * doubling, at most 10 min) tries for about forty minutes.
   */
  public static final int DEFAULT_MAX_ATTEMPTS = 10;

  /** The wait after the first failed attempt, unless set: ten seconds. */
  public static final Duration DEFAULT_FIRST_BACKOFF = Duration.ofSeconds(10);

  /** The longest wait between attempts, unless set: ten minutes. */
  public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofMinutes(10);

  /** Entries one operation takes in one pass, unless set. */
  public static final int DEFAULT_BATCH = 100;

  private static final Logger log = LoggerFactory.getLogger(Completer.class);

  private final Idempotency idempotency;
  private final ResumeLog resumeLog;
  private final int maxAttempts;
  private final Duration firstBackoff;
  private final Duration maxBackoff;
  private final int batch;
  private final Map<String, ResumableOperation<?, ?>> operations = new ConcurrentHashMap<>();

  private Completer(Builder b) {
    this.idempotency = b.idempotency;
    this.resumeLog = b.resumeLog;
    this.maxAttempts = b.maxAttempts;
    this.firstBackoff = b.firstBackoff;
    this.maxBackoff = b.maxBackoff;
    this.batch = b.batch;
  }

  /** A completer for calls run by {@code idempotency} and written to {@code resumeLog}. */
  public static Builder builder(Idempotency idempotency, ResumeLog resumeLog) {
    return new Builder(idempotency, resumeLog);
  }

  /** The log this completer reads. */
  public ResumeLog resumeLog() {
    return resumeLog;
  }

  /**
   * {@link #register(String, ResultCodec, ResultCodec, IdempotencyConfig, ResumableWork)} with the
   * engine's defaults.
   */
  public <I, R extends @Nullable Object> ResumableOperation<I, R> register(
      String name, ResultCodec<I> input, ResultCodec<R> result, ResumableWork<I, R> work) {
    return register(name, input, result, idempotency.defaults(), work);
  }

  /**
   * Registers an operation under {@code name}, the scope of its keys, and returns it for its
   * callers. Each node that should resume its calls registers it alike: a completer takes only the
   * entries of operations registered with it.
   *
   * @param input encodes the input into the log and decodes it for a resumed run; its encoding is
   *     also the request's fingerprint, so it must encode equal inputs to equal bytes
   * @param result encodes the stored answer
   * @throws IllegalArgumentException the name is taken, or is no valid operation name
   */
  public <I, R extends @Nullable Object> ResumableOperation<I, R> register(
      String name,
      ResultCodec<I> input,
      ResultCodec<R> result,
      IdempotencyConfig config,
      ResumableWork<I, R> work) {
    IdempotencyKey.of(name, "check");
    if (name.indexOf('|') >= 0) {
      throw new IllegalArgumentException("an operation's name holds no '|', was '" + name + "'");
    }
    ResumableOperation<I, R> operation =
        new ResumableOperation<>(
            idempotency,
            resumeLog,
            name,
            name,
            Objects.requireNonNull(input, "input"),
            Objects.requireNonNull(result, "result"),
            Objects.requireNonNull(config, "config"),
            Objects.requireNonNull(work, "work"));
    if (operations.putIfAbsent(name, operation) != null) {
      throw new IllegalArgumentException("an operation named '" + name + "' is registered");
    }
    return operation;
  }

  /**
   * One pass over every registered operation: deletes up to a batch of expired entries, then takes
   * each operation's due entries and runs them, one after the other on the calling thread. A
   * failure of one call is counted and the pass goes on.
   *
   * @throws dev.idem.core.IdempotencyStoreException the log could not be read
   */
  public Pass runOnce() {
    // entries past their retention first, a batch a pass (a log that expires them does nothing)
    resumeLog.purgeExpired(batch);
    Pass pass = Pass.NONE;
    for (ResumableOperation<?, ?> operation : operations.values()) {
      Duration hold = operation.config().lease().multipliedBy(2);
      for (ResumeEntry entry : resumeLog.takeDue(operation.name(), hold, batch)) {
        pass = pass.plus(resume(operation, entry));
      }
    }
    return pass;
  }

  /** Up to {@code limit} abandoned calls of {@code operation}. */
  public List<ResumeEntry> abandoned(String operation, int limit) {
    return resumeLog.abandoned(operation, limit);
  }

  /**
   * Gives an abandoned call its attempts back: the next pass runs it. False when it is no longer
   * there or not abandoned.
   */
  public boolean retry(ResumeEntry abandoned) {
    return resumeLog.reopen(abandoned);
  }

  /**
   * Takes a call out of the log for good: no completer runs it again. Its key's record is not
   * touched (a client's retry still runs or replays it). False when it was not there.
   */
  public boolean drop(ResumeEntry entry) {
    return resumeLog.forget(entry);
  }

  private Outcome resume(ResumableOperation<?, ?> operation, ResumeEntry entry) {
    Throwable[] failure = {null};
    return switch (operation.resume(entry, f -> failure[0] = f)) {
      case FINISHED -> Outcome.FINISHED;
      case REPLAYED -> Outcome.REPLAYED;
      case BUSY -> Outcome.BUSY;
      case DROPPED -> Outcome.DROPPED;
      case FAILED -> failed(entry, failure[0], false);
      case BROKEN -> failed(entry, failure[0], true);
    };
  }

  private Outcome failed(ResumeEntry entry, @Nullable Throwable failure, boolean broken) {
    int attempts = entry.attempts() + 1;
    if (broken || attempts >= maxAttempts) {
      log.warn(
          "abandoning {} after {} attempts{}",
          entry,
          attempts,
          broken ? ": its input cannot be read back" : "",
          failure);
      return resumeLog.abandon(entry) ? Outcome.ABANDONED : Outcome.FAILED;
    }
    log.info("could not finish {} (attempt {}): {}", entry, attempts, String.valueOf(failure));
    resumeLog.failed(entry, backoff(attempts));
    return Outcome.FAILED;
  }

  private Duration backoff(int attempts) {
    Duration wait = firstBackoff;
    for (int i = 1; i < attempts && wait.compareTo(maxBackoff) < 0; i++) {
      wait = wait.multipliedBy(2);
    }
    return wait.compareTo(maxBackoff) > 0 ? maxBackoff : wait;
  }

  private enum Outcome {
    FINISHED,
    REPLAYED,
    BUSY,
    FAILED,
    ABANDONED,
    DROPPED
  }

  /**
   * What one pass did.
   *
   * @param finished calls it ran to their end
   * @param replayed calls that had ended already (the client came back, or an earlier pass ended
   *     them); their entries are gone now
   * @param busy calls still in flight, left alone
   * @param failed calls that failed again and wait for their next attempt
   * @param abandoned calls given up in this pass
   * @param dropped entries of requests that were refused (their key belongs to another request)
   */
  public record Pass(int finished, int replayed, int busy, int failed, int abandoned, int dropped) {

    /** A pass that did nothing. */
    public static final Pass NONE = new Pass(0, 0, 0, 0, 0, 0);

    /** How many entries the pass took. */
    public int taken() {
      return finished + replayed + busy + failed + abandoned + dropped;
    }

    private Pass plus(Outcome outcome) {
      return new Pass(
          finished + (outcome == Outcome.FINISHED ? 1 : 0),
          replayed + (outcome == Outcome.REPLAYED ? 1 : 0),
          busy + (outcome == Outcome.BUSY ? 1 : 0),
          failed + (outcome == Outcome.FAILED ? 1 : 0),
          abandoned + (outcome == Outcome.ABANDONED ? 1 : 0),
          dropped + (outcome == Outcome.DROPPED ? 1 : 0));
    }
  }

  /** Builds a {@link Completer}; every setting has a default. */
  public static final class Builder {

    private final Idempotency idempotency;
    private final ResumeLog resumeLog;
    private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
    private Duration firstBackoff = DEFAULT_FIRST_BACKOFF;
    private Duration maxBackoff = DEFAULT_MAX_BACKOFF;
    private int batch = DEFAULT_BATCH;

    private Builder(Idempotency idempotency, ResumeLog resumeLog) {
      this.idempotency = Objects.requireNonNull(idempotency, "idempotency");
      this.resumeLog = Objects.requireNonNull(resumeLog, "resumeLog");
    }

    /** How many failed attempts abandon a call; at least 1. */
    public Builder maxAttempts(int maxAttempts) {
      if (maxAttempts < 1) {
        throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
      }
      this.maxAttempts = maxAttempts;
      return this;
    }

    /** The wait after the first failed attempt, doubled after each one up to {@code max}. */
    public Builder backoff(Duration first, Duration max) {
      if (first.isNegative() || first.isZero() || max.compareTo(first) < 0) {
        throw new IllegalArgumentException(
            "backoff needs 0 < first <= max, was " + first + " and " + max);
      }
      this.firstBackoff = first;
      this.maxBackoff = max;
      return this;
    }

    /** How many due entries of one operation a pass takes at most; at least 1. */
    public Builder batch(int batch) {
      if (batch < 1) {
        throw new IllegalArgumentException("batch must be at least 1, was " + batch);
      }
      this.batch = batch;
      return this;
    }

    public Completer build() {
      return new Completer(this);
    }
  }
}
