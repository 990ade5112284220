package dev.idem.core.resume;

import dev.idem.core.Executed;
import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyException;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.KeyReuseException;
import dev.idem.core.OutcomeNotReplayableException;
import dev.idem.core.PendingOutcome;
import dev.idem.core.ReplayedFailureException;
import dev.idem.core.RequestInProgressException;
import dev.idem.core.ResultCodec;
import dev.idem.core.Work;
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
 * steps that ended.
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
    ResumeEntry entry = entryOf(key, input);
    return call(entry, input, context -> work.run(input, context), null);
  }

  /**
   * As {@link #executeWithStatus(IdempotencyKey, Object)}, for an adapter that runs the call itself
   * (a proxy's chain of advice): {@code work} runs this call, while the registered work is what the
   * completer resumes it with, so both must do the same for the same input. The request's
   * fingerprint is the adapter's own. With a {@code deferral}, the outcome is held as {@link
   * Idempotency#executeWithStatus(IdempotencyKey, Fingerprint, ResultCodec, dev.idem.core.Work,
   * IdempotencyConfig, Consumer)} says, and the entry stays: the completer's next pass replays the
   * answer that was stored and takes it out, or runs the call again when it was freed (its
   * transaction rolled back).
   */
  public <E extends Exception> Executed<R> executeWithStatus(
      IdempotencyKey key,
      Fingerprint fingerprint,
      I input,
      Work<R, E> work,
      @Nullable Consumer<PendingOutcome> deferral)
      throws E {
    byte[] encoded = inputCodec.encode(input);
    return call(ResumeEntry.of(name, key, fingerprint, encoded), input, work, deferral);
  }

  private <E extends Exception> Executed<R> call(
      ResumeEntry entry, I input, Work<R, E> run, @Nullable Consumer<PendingOutcome> deferral)
      throws E {
    Executed<R> executed;
    try {
      executed =
          idempotency.executeWithStatus(
              entry.key(),
              entry.fingerprint(),
              resultCodec,
              context -> {
                resumeLog.remember(entry, config.lease(), config.retention());
                return run.run(context);
              },
              config,
              deferral);
    } catch (Exception e) {
      if (deferral == null && ended(e)) {
        forget(entry);
      }
      throw e;
    }
    if (deferral == null || executed.replayed()) {
      forget(entry);
    }
    return executed;
  }

  /**
   * The entry a call of {@code input} under {@code key} writes to the log: what an operator hands
   * to {@link Completer#drop} for a call that must not be finished without its client.
   */
  public ResumeEntry entryOf(IdempotencyKey key, I input) {
    byte[] encoded = inputCodec.encode(input);
    return ResumeEntry.of(name, key, Fingerprint.of(name, encoded), encoded);
  }

  /** Runs the entry's call again, as a completer does: never waits for a call in flight. */
  Executed<R> resume(ResumeEntry entry) {
    I input = inputCodec.decode(entry.input());
    Executed<R> executed =
        idempotency.executeWithStatus(
            entry.key(),
            entry.fingerprint(),
            resultCodec,
            context -> work.run(input, context),
            IdempotencyConfig.from(config).rejectInProgress().build());
    return executed;
  }

  /**
   * True when {@code failure} ended the call for good: its answer is stored (a failure the config
   * calls terminal, or the replay of one, or an answer that was stored but cannot be replayed). The
   * engine's own refusals (in flight, key reused, store down, lease lost) leave the call open.
   */
  boolean ended(Exception failure) {
    if (failure instanceof ReplayedFailureException
        || failure instanceof OutcomeNotReplayableException) {
      return true;
    }
    return !(failure instanceof IdempotencyException) && config.isTerminal(failure);
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
