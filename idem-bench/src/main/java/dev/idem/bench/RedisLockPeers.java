package dev.idem.bench;

import dev.idem.core.lock.LockHandle;
import dev.idem.redis.RedisLockProvider;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.RFencedLock;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * The Redis locks of the lock-peers benchmark, each on two nodes of its own and under the run's key
 * prefix: Idem's {@link RedisLockProvider}, Redisson's {@link RLock} and {@link RFencedLock}, and
 * Spring Integration's {@link RedisLockRegistry}.
 */
final class RedisLockPeers {

  static final String IDEM = "Idem RedisLockProvider";
  static final String REDISSON = "Redisson RLock";
  static final String REDISSON_FENCED = "Redisson RFencedLock";
  static final String SPRING = "Spring Integration RedisLockRegistry";

  // Fence counters outlive the run by minutes, not the default day, if the clean-up fails.
  private static final Duration FENCE_RETENTION = Duration.ofMinutes(10);

  private RedisLockPeers() {}

  /** All four, Idem's first. */
  static List<LockPeer> all(RedisRig rig) throws Exception {
    return Peers.build(
        List.of(() -> idem(rig), () -> redisson(rig), () -> redissonFenced(rig), () -> spring(rig)),
        LockPeer::shutdown);
  }

  /** {@code tryLock(name, wait, 30 s)}, then {@code close()} of the handle. */
  static LockPeer idem(RedisRig rig) {
    List<RedisClient> clients = List.of(client(rig), client(rig));
    List<RedisLockProvider> providers =
        clients.stream()
            .map(c -> RedisLockProvider.create(c, rig.prefix() + "idem:", FENCE_RETENTION))
            .toList();
    return new LockPeer(
        IDEM,
        "Redis",
        (node, lock, wait) -> {
          Optional<LockHandle> handle = providers.get(node).tryLock(lock, wait, LockPeer.LEASE);
          return handle.<LockPeer.Release>map(h -> h::close).orElse(null);
        },
        () -> {
          providers.forEach(RedisLockProvider::close);
          clients.forEach(RedisClient::shutdown);
        });
  }

  /** {@code getLock(name).tryLock(wait, 30 s)}, then {@code unlock()} on the same thread. */
  static LockPeer redisson(RedisRig rig) {
    List<RedissonClient> clients = redissonClients(rig);
    String prefix = rig.prefix() + "redisson:";
    return new LockPeer(
        REDISSON,
        "Redis",
        (node, lock, wait) -> {
          RLock taken = clients.get(node).getLock(prefix + lock);
          boolean got =
              taken.tryLock(wait.toMillis(), LockPeer.LEASE.toMillis(), TimeUnit.MILLISECONDS);
          return got ? taken::unlock : null;
        },
        () -> clients.forEach(RedissonClient::shutdown));
  }

  /**
   * {@code getFencedLock(name).tryLockAndGetToken(wait, 30 s)}, then {@code unlock()}. Its token
   * counters live outside the run's prefix ({@code redisson_lock_token:{name}}), so the shutdown
   * deletes them by pattern.
   */
  static LockPeer redissonFenced(RedisRig rig) {
    List<RedissonClient> clients = redissonClients(rig);
    String prefix = rig.prefix() + "fenced:";
    return new LockPeer(
        REDISSON_FENCED,
        "Redis",
        (node, lock, wait) -> {
          RFencedLock taken = clients.get(node).getFencedLock(prefix + lock);
          Long token =
              taken.tryLockAndGetToken(
                  wait.toMillis(), LockPeer.LEASE.toMillis(), TimeUnit.MILLISECONDS);
          return token != null ? taken::unlock : null;
        },
        () -> {
          try {
            clients.forEach(RedissonClient::shutdown);
          } finally {
            rig.deleteKeysMatching("redisson_lock_token*" + prefix + "*");
          }
        });
  }

  /**
   * {@code obtain(name).tryLock(wait, 30 s)} on a {@link RedisLockRegistry} of the pub/sub lock
   * type over a {@link LettuceConnectionFactory}, then {@code unlock()}.
   */
  static LockPeer spring(RedisRig rig) {
    List<LettuceConnectionFactory> factories =
        List.of(connectionFactory(rig), connectionFactory(rig));
    List<RedisLockRegistry> registries =
        factories.stream()
            .map(
                f -> {
                  RedisLockRegistry registry =
                      new RedisLockRegistry(f, rig.prefix() + "spring", LockPeer.LEASE);
                  // Its documentation's choice for a standalone server: waiters are woken by the
                  // release's message instead of polling every 100 ms.
                  registry.setRedisLockType(RedisLockRegistry.RedisLockType.PUB_SUB_LOCK);
                  return registry;
                })
            .toList();
    return new LockPeer(
        SPRING,
        "Redis",
        (node, lock, wait) -> {
          DistributedLock taken = registries.get(node).obtain(lock);
          return taken.tryLock(wait, LockPeer.LEASE) ? taken::unlock : null;
        },
        () -> {
          registries.forEach(RedisLockRegistry::destroy);
          factories.forEach(LettuceConnectionFactory::destroy);
        });
  }

  private static RedisClient client(RedisRig rig) {
    RedisURI uri = RedisURI.create(rig.uri());
    uri.setTimeout(RedisRig.COMMAND_TIMEOUT);
    return RedisClient.create(uri);
  }

  private static List<RedissonClient> redissonClients(RedisRig rig) {
    return List.of(
        Redisson.create(LockScenarios.redissonConfig(rig.uri())),
        Redisson.create(LockScenarios.redissonConfig(rig.uri())));
  }

  /** A started Spring Data Redis connection factory for the rig's host and port. */
  static LettuceConnectionFactory connectionFactory(RedisRig rig) {
    RedisURI uri = RedisURI.create(rig.uri());
    RedisStandaloneConfiguration server =
        new RedisStandaloneConfiguration(uri.getHost(), uri.getPort());
    LettuceConnectionFactory factory = new LettuceConnectionFactory(server);
    factory.afterPropertiesSet();
    factory.start();
    return factory;
  }
}
