package dev.idem.redis.internal;

import io.lettuce.core.RedisException;
import io.lettuce.core.api.sync.RedisStringCommands;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/** The lock scripts of {@link LuaScripts}, called with their arguments in order. */
public final class LockCalls {

  private final ScriptRunner scripts;
  private final RedisStringCommands<byte[], byte[]> strings;
  private final RedisKeys keys;
  private final long fenceRetentionMillis;
  private final byte[] channel;

  public LockCalls(
      ScriptRunner scripts,
      RedisStringCommands<byte[], byte[]> strings,
      RedisKeys keys,
      Duration fenceRetention) {
    this.scripts = scripts;
    this.strings = strings;
    this.keys = keys;
    this.fenceRetentionMillis = RedisKeys.millis(fenceRetention);
    this.channel = keys.lockChannel();
  }

  /** The outcome of one attempt: a handle, or how long the holder's lease still runs. */
  public record Attempt(Optional<RedisLock> lock, long holderMillisLeft) {}

  /**
   * Tries once to take {@code name}.
   *
   * @param markWaiter ask the holder's release to publish a wake-up
   */
  public Attempt attempt(String name, String id, Duration lease, boolean markWaiter) {
    byte[][] lockKeys = keys.lock(id);
    // Owners only tell acquisitions apart and are never shown to anyone: no SecureRandom needed.
    ThreadLocalRandom random = ThreadLocalRandom.current();
    String owner = new UUID(random.nextLong(), random.nextLong()).toString();
    long leaseMillis = RedisKeys.millis(lease);
    long answer =
        scripts.number(
            LuaScripts.LOCK,
            // The waiter mark goes along only when it may be set, so a plain try sends less.
            markWaiter ? lockKeys : Arrays.copyOf(lockKeys, 2),
            RedisKeys.bytes(owner),
            RedisKeys.bytes(leaseMillis),
            RedisKeys.bytes(leaseMillis + fenceRetentionMillis));
    if (answer > 0) {
      return new Attempt(Optional.of(new RedisLock(name, id, answer, owner, lockKeys, this)), 0);
    }
    return new Attempt(Optional.empty(), -answer);
  }

  boolean renew(byte[][] lockKeys, String owner, Duration lease) {
    long leaseMillis = RedisKeys.millis(lease);
    return scripts.number(
            LuaScripts.LOCK_RENEW,
            Arrays.copyOf(lockKeys, 2),
            RedisKeys.bytes(owner),
            RedisKeys.bytes(leaseMillis),
            RedisKeys.bytes(leaseMillis + fenceRetentionMillis))
        == 1;
  }

  /** The lease key holds the owner until Redis ends the lease, so a plain GET answers. */
  boolean held(byte[][] lockKeys, String owner) {
    try {
      return Arrays.equals(strings.get(lockKeys[0]), RedisKeys.bytes(owner));
    } catch (RedisException e) {
      throw RedisFailures.of(e);
    }
  }

  void unlock(byte[][] lockKeys, String id, String owner) {
    scripts.number(
        LuaScripts.UNLOCK,
        new byte[][] {lockKeys[0], lockKeys[2]},
        RedisKeys.bytes(owner),
        channel,
        RedisKeys.bytes(id));
  }
}
