package dev.idem.core.resume;

import dev.idem.core.Deferral;
import dev.idem.core.Executed;
import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.KeyReuseException;
import dev.idem.core.OutcomeNotReplayableException;
import dev.idem.core.PendingOutcome;
import dev.idem.core.ReplayedFailureException;
import dev.idem.core.RequestInProgressException;
import dev.idem.core.ResultCodec;
import dev.idem.core.Work;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.Arrays;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An operation whose calls a {@link Completer} finishes when their client does not come back. It is
 * called as an {@link dev.idem.core.IdempotentOperation} is, with a key and an input: the input,
 * encoded, is the request's fingerprint, and once the call holds its key the input is written to
 * the completer's {@link ResumeLog} before the work starts. A call that ends (with a result, or a
 * failure its config calls terminal) takes its entry out of the log; a call that fails retryably,
 * or whose process dies, leaves it there, and the completer runs it again after its lease, from the
 * steps that ended. An input its codec does not read back as it was written is refused with {@link
 * IllegalArgumentException} before the call claims its key.
 *
 * <p>One round trip is not covered: a process that dies after the claim and before the input was
 * written leaves the call to its client's retry, as a call that is not resumable is.
 *
 * @param <I> the input
 * @param <R> the result
 */
public final class ResumableOperation<I, R extends @Nullable Object> {

  private static final Logger log = LoggerFactory.getLogger(ResumableOperation.class);

  private final Idempotency idempotency;
  private final ResumeLog resumeLog;
  private final String name;
  private final String scope;
  private final ResultCodec<I> inputCodec;
  private final ResultCodec<R> resultCodec;
  private final IdempotencyConfig config;
  private final ResumableWork<I, R> work;

  ResumableOperation(
      Idempotency idempotency,
      ResumeLog resumeLog,
      String name,
      String scope,
      ResultCodec<I> inputCodec,
      ResultCodec<R> resultCodec,
      IdempotencyConfig config,
      ResumableWork<I, R> work) {
    this.idempotency = idempotency;
    this.resumeLog = resumeLog;
    this.name = name;
    this.scope = scope;
    this.inputCodec = inputCodec;
    this.resultCodec = resultCodec;
    this.config = config;
    this.work = work;
  }

  /** The name it was registered under. */
  public String name() {
    return name;
  }

  /** The scope of its keys: the name, or the name and a caller. */
  public String scope() {
    return scope;
  }

  /** Its config. */
  public IdempotencyConfig config() {
    return config;
  }

  /**
   * The same operation with keys of {@code caller}'s own, so that two callers' equal key values
   * never meet; the completer resumes their calls all the same.
   */
  public ResumableOperation<I, R> forCaller(String caller) {
    return new ResumableOperation<>(
        idempotency,
        resumeLog,
        name,
        IdempotencyKey.scope(name, caller),
        inputCodec,
        resultCodec,
        config,
        work);
  }

  /** The key of this operation's scope with {@code value}. */
  public IdempotencyKey key(String value) {
    return IdempotencyKey.of(scope, value);
  }

  /**
   * Runs the work once for {@code key} and {@code input} and answers its result, now and on every
   * repeat, as {@link dev.idem.core.IdempotentOperation#execute} does.
   *
   * @throws KeyReuseException the key was used with another input
   * @throws RequestInProgressException a call with the key is still running
   */
  public R execute(String key, I input) {
    return executeWithStatus(key(key), input).value();
  }

  /** As {@link #execute}, with the whole key, and telling whether the result was replayed. */
  public Executed<R> executeWithStatus(IdempotencyKey key, I input) {
    byte[] encoded = encode(input);
    ResumeEntry entry = ResumeEntry.of(name, key, Fingerprint.of(name, encoded), encoded);
    try {
      return call(entry, context -> work.run(input, context), Deferral.NONE);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new UndeclaredThrowableException(e, "the work of " + name + " threw " + e);
    }
  }

  /**
   * As {@link #executeWithStatus(IdempotencyKey, Object)}, for an adapter that runs the call itself
   * (a proxy's chain of advice): {@code work} runs this call, while the registered work is what the
   * completer resumes it with, so both must do the same for the same input. The request's
   * fingerprint is the adapter's own. With a {@code deferral}, the outcome is held as {@link
   * dev.idem.core.IdempotentCall#deferTo} says: the entry goes once the held outcome is stored, and
   * stays when it was freed (its transaction rolled back), for the completer to run the call again.
   * Where the store writes the record in the caller's transaction (JDBC join mode), the entry stays
   * until the completer's next pass finds the answer and takes it out, since the record's fate is
   * decided after this returns.
   */
  public <E extends Exception> Executed<R> executeWithStatus(
      IdempotencyKey key, Fingerprint fingerprint, I input, Work<R, E> work, Deferral deferral)
      throws E {
    byte[] encoded = encode(input);
    return call(ResumeEntry.of(name, key, fingerprint, encoded), work, deferral);
  }

  private <E extends Exception> Executed<R> call(
      ResumeEntry entry, Work<R, E> run, Deferral deferral) throws E {
    boolean joined = idempotency.store().joinsCurrentTransaction();
    boolean[] started = {false};
    Executed<R> executed;
    try {
      executed =
          idempotency
              .call(entry.key(), entry.fingerprint())
              .codec(resultCodec)
              .config(config)
              .deferTo(
                  deferral.holds()
                      ? pending -> deferral.hold(forgettingOnStore(pending, entry))
                      : Deferral.NONE)
              .runWithStatus(
                  context -> {
                    started[0] = true;
                    resumeLog.remember(entry, config.lease(), config.retention());
                    return run.run(context);
                  });
    } catch (Exception e) {
      // a terminal failure is the client's answer, whatever becomes of the record: never resumed
      if (ended(e, started[0])) {
        forget(entry);
      }
      throw e;
    }
    if (executed.replayed() || (!deferral.holds() && !joined)) {
      forget(entry);
    }
    return executed;
  }

  // The input as the log keeps it, refused when it does not read back as it was written: a call
  // the completer could not rebuild must fail here rather than be resumed with other input.
  private byte[] encode(I input) {
    byte[] encoded = inputCodec.encode(input);
    byte[] again = inputCodec.encode(inputCodec.decode(encoded));
    if (!Arrays.equals(encoded, again)) {
      throw new IllegalArgumentException(
          "the input of "
              + name
              + " does not read back as it was written, so a completer could not run the call"
              + " again with it; its codec must read back what it writes");
    }
    return encoded;
  }

  private PendingOutcome forgettingOnStore(PendingOutcome pending, ResumeEntry entry) {
    return new PendingOutcome() {
      @Override
      public IdempotencyKey key() {
        return pending.key();
      }

      @Override
      public boolean complete() {
        boolean stored = pending.complete();
        if (stored) {
          forget(entry);
        }
        return stored;
      }

      @Override
      public void release() {
        pending.release();
      }

      @Override
      public void keep() {
        pending.keep();
      }
    };
  }

  /**
   * The entry a call of {@code input} under {@code key} writes to the log: what an operator hands
   * to {@link Completer#drop} for a call that must not be finished without its client.
   */
  public ResumeEntry entryOf(IdempotencyKey key, I input) {
    byte[] encoded = inputCodec.encode(input);
    return ResumeEntry.of(name, key, Fingerprint.of(name, encoded), encoded);
  }

  /** What a completer's run of a call came to. */
  enum Attempt {
    /** The work ran to its end now. */
    FINISHED,
    /** The call had ended before: its answer was replayed. */
    REPLAYED,
    /** The call is in flight, or the store could not be asked: left for a later pass. */
    BUSY,
    /** The key belongs to another request: this one never runs. */
    DROPPED,
    /** The work failed retryably. */
    FAILED,
    /** The input cannot be read back: no run can ever succeed. */
    BROKEN
  }

  /**
   * Runs the entry's call again, as a completer does: never waits for a call in flight and never
   * runs without its claim, and takes the entry out when the call has ended.
   *
   * @param failed told of the failure of a run that failed or broke
   */
  Attempt resume(ResumeEntry entry, Consumer<Throwable> failed) {
    I input;
    try {
      input = inputCodec.decode(entry.input());
    } catch (RuntimeException e) {
      failed.accept(e);
      return Attempt.BROKEN;
    }
    boolean[] started = {false};
    try {
      Executed<R> executed =
          idempotency
              .call(entry.key(), entry.fingerprint())
              .codec(resultCodec)
              .config(IdempotencyConfig.from(config).rejectInProgress().failOpen(false).build())
              .runWithStatus(
                  context -> {
                    started[0] = true;
                    return work.run(input, context);
                  });
      forget(entry);
      return executed.replayed() ? Attempt.REPLAYED : Attempt.FINISHED;
    } catch (Exception e) {
      if (ended(e, started[0])) {
        forget(entry);
        return started[0] ? Attempt.FINISHED : Attempt.REPLAYED;
      }
      if (!started[0]) {
        if (e instanceof KeyReuseException reuse && reuse.key().equals(entry.key())) {
          // the key belongs to another request now; this one was refused and must never run
          forget(entry);
          return Attempt.DROPPED;
        }
        // in flight elsewhere, or the store could not answer: no attempt of the call's was made
        return Attempt.BUSY;
      }
      failed.accept(e);
      return Attempt.FAILED;
    } catch (OutOfMemoryError e) {
      throw e;
    } catch (Error e) {
      // a linkage error after a deploy, a stack overflow: the run failed, and is counted so that
      // the call is abandoned rather than tried for ever
      failed.accept(e);
      return Attempt.FAILED;
    }
  }

  /**
   * True when {@code failure} ended the call for good: its answer is stored, and a completer must
   * not run it again. Before the work started: the replay of a stored failure or of an answer that
   * could not be kept. After: a failure the config calls terminal, as the engine stores it.
   */
  private boolean ended(Exception failure, boolean started) {
    if (!started) {
      return failure instanceof ReplayedFailureException
          || failure instanceof OutcomeNotReplayableException;
    }
    try {
      return config.isTerminal(failure);
    } catch (RuntimeException classifierFailed) {
      return false;
    }
  }

  /**
   * Takes an ended call's entry out of the log. One left behind (the log was down) is found by the
   * completer, whose run then replays the stored answer and takes it out.
   */
  void forget(ResumeEntry entry) {
    try {
      resumeLog.forget(entry);
    } catch (IdempotencyStoreException e) {
      log.warn("could not remove the ended call {} from the resume log: {}", entry, e.getMessage());
    }
  }

  @Override
  public String toString() {
    return "resumable operation " + scope;
  }
}
