package dev.idem.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;

/** Where the tests find Redis: environment variables with loopback defaults. */
final class RedisTestServers {

  /** A standalone server; the tests use random keys and never flush it. */
  static final String STANDALONE_URI =
      System.getenv().getOrDefault("IDEM_REDIS_URI", "redis://127.0.0.1:6379");

  /** A Cluster seed node; when unset, the tests start a cluster of their own. */
  static final String CLUSTER_URI = System.getenv("IDEM_REDIS_CLUSTER_URI");

  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  private RedisTestServers() {}

  static RedisClient standaloneClient() {
    RedisURI uri = RedisURI.create(STANDALONE_URI);
    uri.setTimeout(TIMEOUT);
    return RedisClient.create(uri);
  }

  static RedisClusterClient clusterClient(String seedUri) {
    return clusterClient(seedUri, TIMEOUT);
  }

  static RedisClusterClient clusterClient(String seedUri, Duration timeout) {
    RedisURI uri = RedisURI.create(seedUri);
    uri.setTimeout(timeout);
    return RedisClusterClient.create(uri);
  }
}
