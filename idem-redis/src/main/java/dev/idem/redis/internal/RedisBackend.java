package dev.idem.redis.internal;

import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.api.async.RedisStringAsyncCommands;
import io.lettuce.core.api.sync.RedisStringCommands;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.netty.util.Timer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * What the store and the lock provider need from Redis, the same for a standalone server and a
 * Cluster: scripting commands, a pub/sub connection, and each primary's eviction policy. Owns the
 * connections it opens; the Lettuce client stays the caller's.
 */
public interface RedisBackend extends AutoCloseable {

  /**
   * Commands that route each script call by its key (in Cluster, to the slot's primary), without
   * waiting, so that two calls share one round trip.
   */
  RedisScriptingAsyncCommands<byte[], byte[]> scriptingAsync();

  /** The longest any call of Idem's waits for Redis, whatever the client's command timeout. */
  Duration CALL_BOUND = Duration.ofSeconds(10);

  /**
   * How long a call may take before it fails: the connection's command timeout, but never more than
   * {@link #CALL_BOUND} (a client without a timeout, or Lettuce's default of 60 s, would hold a
   * caller far past a lease). A claim is bounded tighter, at half its lease.
   */
  Duration timeout();

  /** {@code commandTimeout} within {@link #CALL_BOUND}; none (zero) is the bound. */
  static Duration bounded(Duration commandTimeout) {
    return commandTimeout.isZero()
            || commandTimeout.isNegative()
            || commandTimeout.compareTo(CALL_BOUND) > 0
        ? CALL_BOUND
        : commandTimeout;
  }

  /**
   * The client's own timer (Lettuce's wheel): a timeout set on it is cancelled without taking a
   * lock, so a stage that ends on an I/O thread may cancel its timeout there.
   */
  Timer timer();

  /**
   * The hash slot of {@code key}: keys of one slot may go in one script. A standalone server has
   * one slot for every key.
   */
  default int slotOf(byte[] key) {
    return 0;
  }

  /**
   * The server's clock ({@code TIME}: seconds and microseconds) when every key lives on one server
   * with one clock; null in a Cluster, whose nodes' clocks differ.
   */
  default @Nullable CompletableFuture<List<byte[]>> serverTime() {
    return null;
  }

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

  /**
   * The keys that match {@code pattern}, found by {@code SCAN} over the whole key space (every
   * primary of a cluster): for an operator's rare call, never for a request's.
   */
  List<byte[]> keysMatching(byte[] pattern);

  /** The {@code maxmemory-policy} of each primary. */
  List<String> evictionPolicies();

  /** Closes the connections this backend opened. */
  @Override
  void close();
}
