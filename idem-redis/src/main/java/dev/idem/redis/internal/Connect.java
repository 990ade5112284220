package dev.idem.redis.internal;

import dev.idem.core.IdempotencyStoreException;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.cluster.RedisClusterClient;
import java.util.Objects;

/** Opens a {@link RedisBackend}, turning a failure to connect into the store's exception. */
public final class Connect {

  private Connect() {}

  /** A backend on one server. */
  public static RedisBackend standalone(RedisClient client) {
    Objects.requireNonNull(client, "client");
    try {
      return new StandaloneBackend(client);
    } catch (RedisException e) {
      throw failed(e);
    }
  }

  /** A backend on a Cluster. */
  public static RedisBackend cluster(RedisClusterClient client) {
    Objects.requireNonNull(client, "client");
    try {
      return new ClusterBackend(client);
    } catch (RedisException e) {
      throw failed(e);
    }
  }

  private static IdempotencyStoreException failed(RedisException e) {
    return new IdempotencyStoreException("could not connect to Redis: " + e.getMessage(), e);
  }
}
