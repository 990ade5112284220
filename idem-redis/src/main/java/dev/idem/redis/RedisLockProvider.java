package dev.idem.redis;

import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.lock.LockHandle;
import dev.idem.core.lock.LockProvider;
import dev.idem.core.lock.StoredLockProvider;
import dev.idem.redis.internal.Connect;
import dev.idem.redis.internal.EvictionCheck;
import dev.idem.redis.internal.Notifications;
import dev.idem.redis.internal.RedisBackend;
import dev.idem.redis.internal.RedisKeys;
import dev.idem.redis.internal.RedisLockStorage;
import dev.idem.redis.internal.ScriptRunner;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link LockProvider} on Redis, standalone or Cluster. Each lock is a lease key under {@code
 * <prefix>lock:{<sha-256 of the name>}:lease} holding the owner (a random token per acquisition)
 * and expiring with the lease, by the server's clock, and a fence counter beside it in the same
 * slot. Taking, renewing and releasing are one script each, checking is one {@code GET}; release
 * checks the owner, so it never frees another owner's lock. An acquire and release without waiters
 * cost two round trips and seven Redis commands ({@code EVALSHA} with {@code SET NX PX}, {@code
 * INCR}, {@code PEXPIRE}; {@code EVALSHA} with {@code GET}, {@code DEL}); see docs/redis.md.
 *
 * <p>The fence counter lives on for {@code fenceRetention} (default {@link
 * #DEFAULT_FENCE_RETENTION}) after the last lease of a name ends; a name idle longer than that
 * starts again at fence 1, so unused names leave nothing behind.
 *
 * <p>A waiter marks the lock before it sleeps; the release then publishes the lock's id and wakes
 * it. It also wakes when the holder's lease ends, and at least every {@link
 * StoredLockProvider#MAX_POLL} in case a message was lost. Redis failures give {@link
 * IdempotencyStoreException}. As with every lock, the fence, not the lock, is what keeps a stale
 * holder's writes out (see {@link LockProvider}).
 */
public final class RedisLockProvider implements LockProvider, AutoCloseable {

  /** How long a name's fence counter outlives its last lease: one day. */
  public static final Duration DEFAULT_FENCE_RETENTION = Duration.ofDays(1);

  private final RedisBackend backend;
  private final Notifications releases;
  private final LockProvider locks;

  private RedisLockProvider(RedisBackend backend, String keyPrefix, Duration fenceRetention) {
    if (Objects.requireNonNull(fenceRetention, "fenceRetention").isNegative()
        || fenceRetention.isZero()) {
      throw new IllegalArgumentException("fenceRetention must be positive, was " + fenceRetention);
    }
    RedisKeys keys = new RedisKeys(keyPrefix);
    this.backend = backend;
    try {
      this.releases = new Notifications(backend.openPubSub(), keys.lockChannel());
      this.locks =
          new StoredLockProvider(
              new RedisLockStorage(
                  new ScriptRunner(backend), backend.strings(), keys, releases, fenceRetention));
    } catch (RedisException e) {
      backend.close();
      throw new IdempotencyStoreException("could not connect to Redis: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      backend.close();
      throw e;
    }
    EvictionCheck.warnUnlessNoEviction(backend, "RedisLockProvider");
  }

  /** A provider on a standalone Redis with the default prefix and fence retention. */
  public static RedisLockProvider create(RedisClient client) {
    return create(client, RedisKeys.DEFAULT_PREFIX, DEFAULT_FENCE_RETENTION);
  }

  /**
   * A provider on a standalone Redis.
   *
   * @param keyPrefix put in front of every key and channel; must not contain braces
   * @param fenceRetention how long a name's fence counter outlives its last lease
   */
  public static RedisLockProvider create(
      RedisClient client, String keyPrefix, Duration fenceRetention) {
    return new RedisLockProvider(Connect.standalone(client), keyPrefix, fenceRetention);
  }

  /** A provider on a Redis Cluster with the default prefix and fence retention. */
  public static RedisLockProvider create(RedisClusterClient client) {
    return create(client, RedisKeys.DEFAULT_PREFIX, DEFAULT_FENCE_RETENTION);
  }

  /** A provider on a Redis Cluster; see {@link #create(RedisClient, String, Duration)}. */
  public static RedisLockProvider create(
      RedisClusterClient client, String keyPrefix, Duration fenceRetention) {
    return new RedisLockProvider(Connect.cluster(client), keyPrefix, fenceRetention);
  }

  @Override
  public Optional<LockHandle> tryLock(String name, Duration wait, Duration lease)
      throws InterruptedException {
    return locks.tryLock(name, wait, lease);
  }

  /** Closes this provider's connections; the Lettuce client stays open. */
  @Override
  public void close() {
    try {
      releases.close();
    } finally {
      backend.close();
    }
  }
}
