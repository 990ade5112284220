package dev.idem.redis.internal;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.api.async.RedisStringAsyncCommands;
import io.lettuce.core.api.sync.RedisStringCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** A {@link RedisBackend} on one Redis server (or a primary behind a proxy). */
public final class StandaloneBackend implements RedisBackend {

  private final RedisClient client;
  private final StatefulRedisConnection<byte[], byte[]> connection;

  public StandaloneBackend(RedisClient client) {
    this.client = client;
    this.connection = client.connect(ByteArrayCodec.INSTANCE);
  }

  @Override
  public RedisScriptingAsyncCommands<byte[], byte[]> scriptingAsync() {
    return connection.async();
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
  public CompletableFuture<List<byte[]>> serverTime() {
    return ScriptRunner.sent(() -> connection.async().time());
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
    return connection.sync().waitForReplication(replicas, timeoutMillis);
  }

  @Override
  public List<String> evictionPolicies() {
    String policy = connection.sync().configGet("maxmemory-policy").get("maxmemory-policy");
    return List.of(String.valueOf(policy));
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
