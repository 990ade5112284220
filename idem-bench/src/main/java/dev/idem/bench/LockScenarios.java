package dev.idem.bench;

import dev.idem.core.lock.LockHandle;
import dev.idem.core.lock.LockWatchdog;
import dev.idem.core.lock.WatchedLock;
import dev.idem.redis.RedisLockProvider;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.SingleServerConfig;

/**
 * The lock scenarios: take a lock without waiting, release it at once, on a name drawn at random
 * from {@link #NAMES}, so that two threads rarely want the same one. Idem's {@link
 * RedisLockProvider} with its extras (fence counter, a watchdog watching each handle, the pub/sub
 * subscription that wakes waiters), Redisson's {@link RLock}, and the least a correct lock needs:
 * {@code SET NX PX} with a random owner and a compare-and-delete script.
 */
final class LockScenarios implements AutoCloseable {

  /** How many lock names the threads pick from. */
  static final int NAMES = 1000;

  static final Duration LEASE = Duration.ofSeconds(30);

  // Fence counters outlive the run by minutes, not the default day, if the clean-up fails.
  private static final Duration FENCE_RETENTION = Duration.ofMinutes(10);

  // Deletes the key only if it still holds this owner's token, so a late release never frees the
  // lock of whoever took it after the lease ran out.
  private static final String COMPARE_AND_DELETE =
      "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end"
          + " return 0";

  private final RedisRig rig;
  private final RedisCommands<String, String> raw;
  private final RedisLockProvider provider;
  private final LockWatchdog watchdog;
  private final RedissonClient redisson;
  private final String unlockSha;

  LockScenarios(RedisRig rig) {
    this.rig = rig;
    this.raw = rig.raw();
    this.provider = RedisLockProvider.create(rig.client(), rig.prefix() + "idem:", FENCE_RETENTION);
    this.watchdog = LockWatchdog.create();
    this.redisson = Redisson.create(redissonConfig(rig.uri()));
    this.unlockSha = raw.scriptLoad(COMPARE_AND_DELETE);
  }

  /**
   * Redisson's settings, as the report states them: its defaults but for the address and the
   * command timeout (the same 10 s as Lettuce's).
   */
  static Config redissonConfig(String uri) {
    Config config = new Config();
    config.useSingleServer().setAddress(uri).setTimeout((int) RedisRig.COMMAND_TIMEOUT.toMillis());
    return config;
  }

  /** The pool and thread settings Redisson runs with, for the report. */
  static String redissonSettings(String uri) {
    Config config = redissonConfig(uri);
    SingleServerConfig server = config.useSingleServer();
    return "connection pool %d (minimum idle %d), %d Netty threads, %d listener threads"
        .formatted(
            server.getConnectionPoolSize(),
            server.getConnectionMinimumIdleSize(),
            config.getNettyThreads(),
            config.getThreads());
  }

  /** Idem: {@code tryLock(name, 0, 30 s)}, watched by a {@link LockWatchdog}, then closed. */
  RedisLoadDriver.Op idem() {
    return (thread, seq) -> {
      Optional<LockHandle> handle = provider.tryLock(name("i"), Duration.ZERO, LEASE);
      if (handle.isEmpty()) {
        return false;
      }
      WatchedLock watched = watchdog.watch(handle.get(), LEASE);
      watched.close();
      return true;
    };
  }

  /** Redisson: {@code tryLock(0, 30, SECONDS)}, then {@code unlock()} on the same thread. */
  RedisLoadDriver.Op redisson() {
    return (thread, seq) -> {
      RLock lock = redisson.getLock(name("r"));
      if (!lock.tryLock(0, LEASE.toSeconds(), TimeUnit.SECONDS)) {
        return false;
      }
      lock.unlock();
      return true;
    };
  }

  /** {@code SET name owner NX PX 30000}, then the compare-and-delete script by its SHA. */
  RedisLoadDriver.Op minimal() {
    SetArgs args = SetArgs.Builder.nx().px(LEASE.toMillis());
    return (thread, seq) -> {
      String key = name("m");
      ThreadLocalRandom random = ThreadLocalRandom.current();
      String owner = new UUID(random.nextLong(), random.nextLong()).toString();
      if (!"OK".equals(raw.set(key, owner, args))) {
        return false;
      }
      Long deleted = raw.evalsha(unlockSha, ScriptOutputType.INTEGER, new String[] {key}, owner);
      if (deleted == null || deleted != 1) {
        throw new IllegalStateException("own lock not released");
      }
      return true;
    };
  }

  private String name(String style) {
    return rig.prefix() + style + "lock:" + ThreadLocalRandom.current().nextInt(NAMES);
  }

  @Override
  public void close() {
    try {
      redisson.shutdown();
    } finally {
      try {
        watchdog.close();
      } finally {
        provider.close();
      }
    }
  }
}
