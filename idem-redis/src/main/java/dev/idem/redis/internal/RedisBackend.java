package dev.idem.redis.internal;

import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.api.async.RedisStringAsyncCommands;
import io.lettuce.core.api.sync.RedisScriptingCommands;
import io.lettuce.core.api.sync.RedisStringCommands;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.List;

/**
 * What the store and the lock provider need from Redis, the same for a standalone server and a
 * Cluster: scripting commands, a pub/sub connection, and each primary's eviction policy. Owns the
 * connections it opens; the Lettuce client stays the caller's.
 */
public interface RedisBackend extends AutoCloseable {

  /** Commands that route each script call by its key (in Cluster, to the slot's primary). */
  RedisScriptingCommands<byte[], byte[]> scripting();

  /** The same commands without waiting, so that two calls share one round trip. */
  RedisScriptingAsyncCommands<byte[], byte[]> scriptingAsync();

  /** How long a call may take before it fails: the connection's command timeout. */
  Duration timeout();

  /**
   * The client's own timer (Lettuce's wheel): a timeout set on it is cancelled without taking a
   * lock, so a stage that ends on an I/O thread may cancel its timeout there.
   */
  Timer timer();

  /** Plain string commands on the same connection, routed by key. */
  RedisStringCommands<byte[], byte[]> strings();

  /** The same commands without waiting. */
  RedisStringAsyncCommands<byte[], byte[]> stringsAsync();

  /** Opens a pub/sub connection; in Cluster a PUBLISH from any node reaches it. */
  StatefulRedisPubSubConnection<byte[], byte[]> openPubSub();

  /**
   * {@code WAIT}: how many replicas have this connection's writes so far, waiting at most so long.
   */
  long waitForReplicas(int replicas, long timeoutMillis);

  /** The {@code maxmemory-policy} of each primary. */
  List<String> evictionPolicies();

  /** Closes the connections this backend opened. */
  @Override
  void close();
}
