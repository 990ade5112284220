package dev.idem.redis;

import dev.idem.core.store.IdempotencyStore;
import dev.idem.testsupport.servers.PrivateRedisCluster;
import java.util.function.Supplier;

/**
 * Builds, in a crash test's child JVM, a store on the same Cluster as the tests: the one named by
 * {@code IDEM_REDIS_CLUSTER_URI}, or else the one the parent JVM started, whose seed address it
 * wrote down for its children.
 */
public final class ClusterStoreFactory implements Supplier<IdempotencyStore> {

  @Override
  public IdempotencyStore get() {
    String seed =
        RedisTestServers.CLUSTER_URI != null
            ? RedisTestServers.CLUSTER_URI
            : PrivateRedisCluster.seedUrlOf(ProcessHandle.current().parent().orElseThrow().pid());
    return RedisIdempotencyStore.create(RedisTestServers.clusterClient(seed));
  }
}
