package dev.idem.redis.internal;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/** The lock scripts of {@link LuaScripts}, called with their arguments in order. */
public final class LockCalls {

  private final ScriptRunner scripts;
  private final RedisKeys keys;
  private final byte[] fenceRetention;

  public LockCalls(ScriptRunner scripts, RedisKeys keys, Duration fenceRetention) {
    this.scripts = scripts;
    this.keys = keys;
    this.fenceRetention = RedisKeys.bytes(RedisKeys.millis(fenceRetention));
  }

  /** The outcome of one attempt: a handle, or how long the holder's lease still runs. */
  public record Attempt(Optional<RedisLock> lock, long holderMillisLeft) {}

  /**
   * Tries once to take {@code name}.
   *
   * @param markWaiter ask the holder's release to publish a wake-up
   */
  public Attempt attempt(String name, String id, Duration lease, boolean markWaiter) {
    byte[] key = keys.lock(id);
    // Owners only tell acquisitions apart and are never shown to anyone: no SecureRandom needed.
    ThreadLocalRandom random = ThreadLocalRandom.current();
    String owner = new UUID(random.nextLong(), random.nextLong()).toString();
    List<Object> reply =
        scripts.list(
            LuaScripts.LOCK,
            key,
            RedisKeys.bytes(owner),
            RedisKeys.bytes(RedisKeys.millis(lease)),
            fenceRetention,
            RedisKeys.bytes(markWaiter ? "1" : "0"));
    long value = (Long) reply.get(1);
    if ((Long) reply.get(0) == 1) {
      return new Attempt(Optional.of(new RedisLock(name, id, value, owner, this)), 0);
    }
    return new Attempt(Optional.empty(), value);
  }

  byte[] key(String id) {
    return keys.lock(id);
  }

  boolean renew(byte[] key, String owner, Duration lease) {
    return scripts.number(
            LuaScripts.LOCK_RENEW,
            key,
            RedisKeys.bytes(owner),
            RedisKeys.bytes(RedisKeys.millis(lease)),
            fenceRetention)
        == 1;
  }

  boolean held(byte[] key, String owner) {
    return scripts.number(LuaScripts.LOCK_HELD, key, RedisKeys.bytes(owner)) == 1;
  }

  void unlock(byte[] key, String id, String owner) {
    scripts.number(
        LuaScripts.UNLOCK, key, RedisKeys.bytes(owner), keys.lockChannel(), RedisKeys.bytes(id));
  }
}
