package dev.idem.redis.internal;

import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import io.lettuce.core.api.async.RedisStringAsyncCommands;
import java.time.Clock;
import java.util.concurrent.CompletableFuture;

/**
 * Answers the claim of a key this store has seen completed with one plain {@code GET} of the record
 * instead of a claim. A completed record never changes until it expires (only a claim of an expired
 * record, an operator's eviction, or an outside {@code DEL}, can replace it), and a value that
 * Redis still returns has not expired, since every record's key expires at its logical end. So a
 * read that finds the record COMPLETED is what the claim script would have answered, fingerprint
 * check included; anything else (absent, in progress, issued) goes on to the claim as before. The
 * one difference is the millisecond in which the record ends: Redis still returns the value then,
 * where the script takes the record as ended, so the read answers Completed one millisecond longer.
 *
 * <p>Which digests were completed is kept in {@link ReplayHints}. Redis stays the only source of
 * the answer: a hint that is wrong (the record was deleted in Redis) costs one extra read, never a
 * wrong reply.
 */
public final class CompletedReplays {

  private final RedisStringAsyncCommands<byte[], byte[]> strings;
  private final ReplayHints hints = new ReplayHints();
  private final Clock clock;

  public CompletedReplays(RedisStringAsyncCommands<byte[], byte[]> strings, Clock clock) {
    this.strings = strings;
    this.clock = clock;
  }

  /** Notes that the record of {@code digest} is completed until about {@code expiresAtMillis}. */
  public void remember(String digest, long expiresAtMillis) {
    hints.remember(digest, expiresAtMillis, clock.millis());
  }

  /**
   * The claim's answer read from the record; null when there is no hint for the key (then nothing
   * is sent), or the record turned out not to be completed: then the caller runs the claim script.
   */
  public CompletableFuture<ClaimResult> replay(byte[] recordKey, ClaimRequest request) {
    if (request.requireIssued()) {
      return CompletableFuture.completedFuture(null);
    }
    String digest = request.key().digest();
    int slot = hints.find(digest, clock.millis());
    if (slot < 0) {
      return CompletableFuture.completedFuture(null);
    }
    return ScriptRunner.sent(() -> strings.get(recordKey))
        .exceptionallyCompose(
            failure -> CompletableFuture.failedFuture(ScriptRunner.failed(failure)))
        .thenApply(
            value -> {
              ClaimResult answer = value == null ? null : RecordReplies.completed(value, request);
              if (answer == null) {
                hints.forget(slot, digest);
              }
              return answer;
            });
  }
}
