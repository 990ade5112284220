package dev.idem.spring.autoconfigure.internal;

import dev.idem.core.resume.ResumeLog;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.redis.RedisIdempotencyStore;
import dev.idem.redis.ReplicaAcks;
import dev.idem.spring.IdemProperties;
import dev.idem.spring.IdemRedisProperties;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * The Redis store on the application's Lettuce client (a {@code RedisClient} or {@code
 * RedisClusterClient} bean), else on the native client of Spring Data Redis's {@code
 * LettuceConnectionFactory}, which carries everything {@code spring.data.redis.*} says (Sentinel or
 * Cluster, SSL, database, timeouts, credentials). Loaded only when idem-redis is present.
 */
final class RedisStores {

  private static final String LETTUCE_FACTORY =
      "org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory";

  private RedisStores() {}

  /** A store and where its connection came from. */
  record Built(IdempotencyStore store, String source) {}

  static Built create(ListableBeanFactory beans, IdemRedisProperties properties) {
    RedisClient client = beans.getBeanProvider(RedisClient.class).getIfUnique();
    if (client != null) {
      return new Built(standalone(client, properties), "on the RedisClient bean");
    }
    RedisClusterClient cluster = beans.getBeanProvider(RedisClusterClient.class).getIfUnique();
    if (cluster != null) {
      return new Built(cluster(cluster, properties), "on the RedisClusterClient bean");
    }
    if (ClassUtils.isPresent(LETTUCE_FACTORY, RedisStores.class.getClassLoader())) {
      AbstractRedisClient shared = SpringDataRedis.nativeClient(beans);
      if (shared instanceof RedisClusterClient c) {
        return new Built(
            cluster(c, properties),
            "on the Redis Cluster of spring.data.redis (the LettuceConnectionFactory's client)");
      }
      if (shared instanceof RedisClient c) {
        return new Built(
            standalone(c, properties),
            "on the Redis of spring.data.redis (the LettuceConnectionFactory's client, database "
                + SpringDataRedis.database(beans)
                + ")");
      }
    }
    throw new StoreUnavailableException(
        "idem.store is redis, but the application has no Lettuce connection to Redis.",
        "Add org.springframework.boot:spring-boot-starter-data-redis and set spring.data.redis.*"
            + " (with Lettuce, its default client), or define a RedisClient or RedisClusterClient"
            + " bean.");
  }

  private static RedisIdempotencyStore standalone(
      RedisClient client, IdemRedisProperties properties) {
    if (properties.getReplicaAcks() == 0) {
      return RedisIdempotencyStore.create(client, properties.getKeyPrefix());
    }
    return RedisIdempotencyStore.create(
        client,
        properties.getKeyPrefix(),
        new ReplicaAcks(properties.getReplicaAcks(), properties.getReplicaAckTimeout()));
  }

  /**
   * Refuses a wait for replicas as long as half the shortest lease: a claim is given up on at half
   * its lease, so every claim would be.
   *
   * @throws StoreUnavailableException naming the lease and the wait
   */
  static void requireAcksWithinClaims(IdemProperties properties) {
    IdemRedisProperties redis = properties.getRedis();
    if (redis.getReplicaAcks() == 0) {
      return;
    }
    java.util.Map<String, java.time.Duration> leases = new java.util.TreeMap<>();
    leases.put(
        "idem.defaults.lease",
        properties.getDefaults().getLease() != null
            ? properties.getDefaults().getLease()
            : dev.idem.core.IdempotencyConfig.DEFAULT_LEASE);
    properties
        .getPolicies()
        .forEach(
            (name, policy) -> {
              if (policy.getLease() != null) {
                leases.put("idem.policies." + name + ".lease", policy.getLease());
              }
            });
    leases.forEach(
        (property, lease) -> {
          if (redis.getReplicaAckTimeout().compareTo(lease.dividedBy(2)) >= 0) {
            throw new StoreUnavailableException(
                "idem.redis.replica-ack-timeout ("
                    + redis.getReplicaAckTimeout()
                    + ") is not under half of "
                    + property
                    + " ("
                    + lease
                    + "): a claim is given up on at half its lease, so a claim waiting that long"
                    + " for replicas would never count.",
                "Shorten idem.redis.replica-ack-timeout, or lengthen the lease.");
          }
        });
  }

  // Nothing silently unprotected: a Cluster store cannot wait for replicas, so it refuses to start.
  private static RedisIdempotencyStore cluster(
      RedisClusterClient client, IdemRedisProperties properties) {
    if (properties.getReplicaAcks() != 0) {
      throw new StoreUnavailableException(
          "idem.redis.replica-acks is set, but the store runs on a Redis Cluster, where WAIT"
              + " reaches no particular node.",
          "Remove idem.redis.replica-acks, or run on a standalone primary or one behind Sentinel.");
    }
    return RedisIdempotencyStore.create(client, properties.getKeyPrefix());
  }

  static boolean isRedis(IdempotencyStore store) {
    return store instanceof RedisIdempotencyStore;
  }

  /** The resume log on the Redis store's own connection. */
  static ResumeLog resumeLog(IdempotencyStore store) {
    return ((RedisIdempotencyStore) store).resumeLog();
  }
}
