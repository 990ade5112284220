package dev.idem.redis.internal;

import dev.idem.core.OutcomeTooLargeException;
import dev.idem.core.internal.LogThrottle;
import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Redis store's completion, sent as stages: the completion script, which for a counted claim
 * also moves its count in the scope's tally when the tally shares the record's hash slot; in a
 * Cluster where it does not, the move is a script of its own, sent at once with the completion. The
 * store's {@code complete} returns them combined, each bounded by the call timeout.
 */
public final class RecordCompletions {

  private static final Logger log = LoggerFactory.getLogger(RecordCompletions.class);

  private final RedisBackend backend;
  private final RedisKeys keys;
  private final ScriptRunner scripts;
  private final CompletedReplays replays;
  private final ScopeTally tally;
  private final byte[] changeChannel;
  private final Clock clock;
  private final LogThrottle countFailures = new LogThrottle();

  public RecordCompletions(
      RedisBackend backend,
      RedisKeys keys,
      ScriptRunner scripts,
      CompletedReplays replays,
      ScopeTally tally,
      Clock clock) {
    this.backend = backend;
    this.clock = clock;
    this.keys = keys;
    this.scripts = scripts;
    this.replays = replays;
    this.tally = tally;
    this.changeChannel = keys.changeChannel();
  }

  /**
   * Completes {@code lease} with {@code outcome}, kept for {@code retention}: a stage that ends on
   * Lettuce's thread with whether the lease still matched, each command bounded. In a Cluster the
   * record's count is moved by a command of its own, sent at once beside the completion; a
   * completion stands even if its count could not be moved (the count then ends with the claim's):
   * that is only logged.
   */
  public CompletableFuture<Boolean> complete(Lease lease, Outcome outcome, Duration retention) {
    String digest = lease.key().digest();
    long retentionMillis = RedisKeys.millis(retention);
    long expiresAt = clock.millis() + retentionMillis;
    byte[] head =
        new RecordValue.Writer()
            .field('S', "P")
            .field('F', lease.fence())
            .field('O', lease.owner())
            .toBytes();
    byte[] fields =
        new RecordValue.Writer()
            .field('F', lease.fence())
            .field('K', RecordValue.kindCode(outcome.kind()))
            .field('B', outcome.payload())
            .field('X', expiresAt)
            .toBytes();
    byte[] recordKey = keys.record(lease.key());
    // the script moves the count itself when the tally shares the record's slot
    byte[] tallyKey = RecordClaims.counted(lease) ? tally.tally(lease.key()) : null;
    boolean inScript = tallyKey != null && tally.sharesSlot(recordKey, tallyKey);
    CompletableFuture<Long> counted =
        tallyKey != null && !inScript ? tally.end(lease.key(), retentionMillis) : null;
    boolean mark = outcome.kind() == Outcome.Kind.UNSTORED;
    CompletableFuture<Boolean> stored =
        scripts
            .numberAsync(
                mark ? LuaScripts.COMPLETE_MARK : LuaScripts.COMPLETE,
                inScript ? new byte[][] {recordKey, tallyKey} : new byte[][] {recordKey},
                head,
                fields,
                RedisKeys.bytes(retentionMillis),
                changeChannel,
                RedisKeys.bytes(digest))
            .thenApply(
                n -> {
                  if (n == 1) {
                    replays.remember(digest, expiresAt);
                  }
                  return n == 1;
                })
            .exceptionallyCompose(
                failure ->
                    CompletableFuture.failedFuture(
                        !mark && RedisFailures.outOfMemory(failure)
                            ? outOfMemory(outcome, failure)
                            : failure));
    if (counted == null) {
      return bounded(stored);
    }
    return bounded(stored)
        .thenCombine(
            bounded(counted)
                .handle(
                    (moved, failure) -> {
                      if (failure != null) {
                        countNotMoved(failure);
                      }
                      return moved;
                    }),
            (done, moved) -> done);
  }

  // A result Redis has no memory for is a result too large to keep: the engine then stores the
  // unstored mark, which is allowed past the limit, instead of leaving the key to a second run.
  private static OutcomeTooLargeException outOfMemory(Outcome outcome, Throwable failure) {
    int size = outcome.payload().length;
    return new OutcomeTooLargeException(
        "an outcome of " + size + " bytes does not fit: " + root(failure), size, 0);
  }

  private static @Nullable String root(Throwable failure) {
    Throwable t = failure;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage();
  }

  // One line per ten seconds at most: a stalled Redis fails the move of every completion's count.
  private void countNotMoved(Throwable failure) {
    if (countFailures.due()) {
      log.warn(
          "could not move the count of a completed record{}: {}",
          countFailures.skipped(),
          failure.toString());
    }
  }

  /**
   * {@code stage}, failing with the store's timeout failure once the call timeout has passed,
   * whatever the client's own timeout options.
   */
  public <T> CompletableFuture<T> bounded(CompletableFuture<T> stage) {
    return RecordClaims.bounded(stage, backend.timeout(), backend.timer());
  }
}
