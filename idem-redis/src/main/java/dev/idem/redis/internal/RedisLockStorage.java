package dev.idem.redis.internal;

import dev.idem.core.lock.LockStorage;
import io.lettuce.core.RedisException;
import io.lettuce.core.api.sync.RedisStringCommands;
import java.time.Duration;
import java.util.Arrays;

/**
 * Locks on Redis through the lock scripts of {@link LuaScripts}: a lease key holding the owner and
 * a fence counter beside it in one slot, named by the digest of the lock's name. A waiter's attempt
 * also sets a waiter mark, and the release of a marked lock publishes its id, which {@link #listen}
 * hears through {@link Notifications}.
 */
public final class RedisLockStorage implements LockStorage {

  private final ScriptRunner scripts;
  private final RedisStringCommands<byte[], byte[]> strings;
  private final RedisKeys keys;
  private final Notifications releases;
  private final long fenceRetentionMillis;
  private final byte[] channel;

  public RedisLockStorage(
      ScriptRunner scripts,
      RedisStringCommands<byte[], byte[]> strings,
      RedisKeys keys,
      Notifications releases,
      Duration fenceRetention) {
    this.scripts = scripts;
    this.strings = strings;
    this.keys = keys;
    this.releases = releases;
    this.fenceRetentionMillis = RedisKeys.millis(fenceRetention);
    this.channel = keys.lockChannel();
  }

  @Override
  public Attempt acquire(String name, String owner, Duration lease, boolean waiting) {
    byte[][] lockKeys = keys.lock(RedisKeys.digest(name));
    long leaseMillis = RedisKeys.millis(lease);
    long answer =
        scripts.number(
            LuaScripts.LOCK,
            // The waiter mark goes along only when it may be set, so a plain try sends less.
            waiting ? lockKeys : Arrays.copyOf(lockKeys, 2),
            RedisKeys.bytes(owner),
            RedisKeys.bytes(leaseMillis),
            RedisKeys.bytes(leaseMillis + fenceRetentionMillis));
    return answer > 0 ? Attempt.taken(answer) : Attempt.refused(Duration.ofMillis(-answer));
  }

  @Override
  public boolean renew(String name, String owner, long fence, Duration lease) {
    long leaseMillis = RedisKeys.millis(lease);
    return scripts.number(
            LuaScripts.LOCK_RENEW,
            Arrays.copyOf(keys.lock(RedisKeys.digest(name)), 2),
            RedisKeys.bytes(owner),
            RedisKeys.bytes(leaseMillis),
            RedisKeys.bytes(leaseMillis + fenceRetentionMillis))
        == 1;
  }

  /** The lease key holds the owner until Redis ends the lease, so a plain GET answers. */
  @Override
  public boolean isHeld(String name, String owner, long fence) {
    try {
      byte[] lease = keys.lock(RedisKeys.digest(name))[0];
      return Arrays.equals(strings.get(lease), RedisKeys.bytes(owner));
    } catch (RedisException e) {
      throw RedisFailures.of(e);
    }
  }

  @Override
  public boolean release(String name, String owner, long fence) {
    String id = RedisKeys.digest(name);
    byte[][] lockKeys = keys.lock(id);
    return scripts.number(
            LuaScripts.UNLOCK,
            new byte[][] {lockKeys[0], lockKeys[2]},
            RedisKeys.bytes(owner),
            channel,
            RedisKeys.bytes(id))
        == 1;
  }

  /** Releases are published to every process; one could be lost while a connection is down. */
  @Override
  public boolean announcesReleases() {
    return true;
  }

  @Override
  public Runnable listen(String name, Runnable wake) {
    return releases.listen(RedisKeys.digest(name), wake);
  }
}
