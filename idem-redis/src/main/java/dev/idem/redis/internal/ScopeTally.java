package dev.idem.redis.internal;

import dev.idem.core.IdempotencyKey;
import java.util.concurrent.CompletableFuture;

/**
 * Counts each scope's live records, for claims and issues that cap their scope: one sorted set per
 * scope (see {@link LuaScripts#TALLY_ADD}), in a slot of its own, so in a Cluster it is not atomic
 * with the record. Each call goes out ahead of the record's own command and is waited for after it,
 * so both share one round trip. The count is close rather than exact: a record whose claim never
 * answered counts until the end its claim gave it.
 */
public final class ScopeTally {

  private final ScriptRunner scripts;
  private final RedisKeys keys;

  public ScopeTally(ScriptRunner scripts, RedisKeys keys) {
    this.scripts = scripts;
    this.keys = keys;
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

  private byte[] tally(IdempotencyKey key) {
    return keys.tally(RedisKeys.digest(key.scope()));
  }
}
