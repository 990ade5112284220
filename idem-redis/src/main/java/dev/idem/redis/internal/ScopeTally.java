package dev.idem.redis.internal;

import dev.idem.core.IdempotencyKey;
import java.util.concurrent.CompletableFuture;

/**
 * Counts each scope's live records, for claims and issues that cap their scope: one sorted set per
 * scope (see {@code LuaScripts.TALLY}), keyed by the scope's digest. Where the tally shares the
 * record's hash slot (always on a standalone server) the record's own script counts, atomically and
 * with no command of its own; {@link #sharesSlot} says so. In a Cluster it usually sits in another
 * slot, and the calls here go out ahead of the record's command and are waited for after it, so
 * both share one round trip; the count is then close rather than exact: a record whose claim never
 * answered counts until the end its claim gave it.
 */
public final class ScopeTally {

  private final RedisBackend backend;
  private final ScriptRunner scripts;
  private final RedisKeys keys;

  public ScopeTally(RedisBackend backend, ScriptRunner scripts, RedisKeys keys) {
    this.backend = backend;
    this.scripts = scripts;
    this.keys = keys;
  }

  /** The Redis key of {@code key}'s scope's tally. */
  public byte[] tally(IdempotencyKey key) {
    return keys.tally(RedisKeys.digest(key.scope()));
  }

  /**
   * Whether {@code tally}, a tally's key, is in the hash slot of {@code recordKey}, so that one
   * script may write both.
   */
  public boolean sharesSlot(byte[] recordKey, byte[] tally) {
    return backend.slotOf(recordKey) == backend.slotOf(tally);
  }

  /**
   * Counts {@code key}'s record for {@code millis} unless its scope holds {@code cap} others; the
   * stage answers 1 when counted.
   */
  public CompletableFuture<Long> count(IdempotencyKey key, long millis, int cap) {
    return scripts.numberAsync(
        LuaScripts.TALLY_ADD,
        tally(key),
        RedisKeys.bytes(key.digest()),
        RedisKeys.bytes(millis),
        RedisKeys.bytes(cap));
  }

  /** Counts a counted record for {@code millis} from now, as its completion keeps it. */
  public CompletableFuture<Long> end(IdempotencyKey key, long millis) {
    return scripts.numberAsync(
        LuaScripts.TALLY_SET, tally(key), RedisKeys.bytes(key.digest()), RedisKeys.bytes(millis));
  }

  /** Stops counting a record that was given up. */
  public CompletableFuture<Long> remove(IdempotencyKey key) {
    return scripts.numberAsync(LuaScripts.TALLY_REMOVE, tally(key), RedisKeys.bytes(key.digest()));
  }
}
