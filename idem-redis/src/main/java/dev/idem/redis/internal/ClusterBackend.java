package dev.idem.redis.internal;

import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.api.async.RedisStringAsyncCommands;
import io.lettuce.core.api.sync.RedisStringCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A {@link RedisBackend} on a Redis Cluster. Lettuce routes each script call to the primary of its
 * key's slot and follows MOVED and ASK redirections.
 */
public final class ClusterBackend implements RedisBackend {

  private final RedisClusterClient client;
  private final StatefulRedisClusterConnection<byte[], byte[]> connection;

  public ClusterBackend(RedisClusterClient client) {
    this.client = client;
    this.connection = client.connect(ByteArrayCodec.INSTANCE);
  }

  @Override
  public RedisScriptingAsyncCommands<byte[], byte[]> scriptingAsync() {
    return connection.async();
  }

  @Override
  public int slotOf(byte[] key) {
    return SlotHash.getSlot(key);
  }

  @Override
  public Duration timeout() {
    return RedisBackend.bounded(connection.getTimeout());
  }

  @Override
  public Timer timer() {
    return connection.getResources().timer();
  }

  @Override
  public RedisStringCommands<byte[], byte[]> strings() {
    return connection.sync();
  }

  @Override
  public RedisStringAsyncCommands<byte[], byte[]> stringsAsync() {
    return connection.async();
  }

  @Override
  public StatefulRedisPubSubConnection<byte[], byte[]> openPubSub() {
    return client.connectPubSub(ByteArrayCodec.INSTANCE);
  }

  @Override
  public long waitForReplicas(int replicas, long timeoutMillis) {
    throw new UnsupportedOperationException("WAIT is not routed to a key's node in a Cluster");
  }

  @Override
  public List<String> evictionPolicies() {
    List<String> policies = new ArrayList<>();
    for (Map<String, String> config :
        connection.sync().upstream().commands().configGet("maxmemory-policy")) {
      policies.add(String.valueOf(config.get("maxmemory-policy")));
    }
    return policies;
  }

  @Override
  public List<byte[]> keysMatching(byte[] pattern) {
    List<byte[]> found = new ArrayList<>();
    ScanIterator.scan(connection.sync(), new ScanArgs().match(pattern).limit(1000))
        .forEachRemaining(found::add);
    return found;
  }

  @Override
  public void close() {
    connection.close();
  }
}
