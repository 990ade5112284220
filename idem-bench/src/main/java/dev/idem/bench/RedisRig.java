package dev.idem.bench;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The Redis the benchmark talks to: one Lettuce client, one shared connection for the raw commands,
 * and the key prefix of this run. Every key the run writes starts with that prefix, and {@link
 * #close()} deletes them by {@code SCAN} and {@code UNLINK}: the server may hold other people's
 * data, so nothing is ever flushed.
 */
final class RedisRig implements AutoCloseable {

  /** Where Redis is unless {@code IDEM_REDIS_URI} says otherwise. */
  static final String DEFAULT_URI = "redis://127.0.0.1:6379";

  static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(10);
  private static final int SCAN_COUNT = 1000;

  private final String uri;
  private final String prefix;
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final StatefulRedisConnection<String, String> admin;

  private RedisRig(String uri) {
    this.uri = uri;
    // A per-run prefix: two runs, or a run and an earlier crashed one, never share keys.
    this.prefix = "idem-bench:" + UUID.randomUUID().toString().substring(0, 8) + ":";
    RedisURI redisUri = RedisURI.create(uri);
    redisUri.setTimeout(COMMAND_TIMEOUT);
    this.client = RedisClient.create(redisUri);
    this.connection = client.connect();
    // Counters and clean-up go over their own connection, so they never queue behind the load.
    this.admin = client.connect();
  }

  /** Connects to {@code IDEM_REDIS_URI}, or to {@link #DEFAULT_URI}. */
  static RedisRig fromEnvironment() {
    String uri = System.getenv("IDEM_REDIS_URI");
    return new RedisRig(uri == null || uri.isBlank() ? DEFAULT_URI : uri);
  }

  /** The Redis URI, for Redisson and for the report. */
  String uri() {
    return uri;
  }

  /** What every key of this run starts with. */
  String prefix() {
    return prefix;
  }

  /** The Lettuce client, shared by Idem's store and lock provider. */
  RedisClient client() {
    return client;
  }

  /** The raw commands: one connection that every worker thread shares, as Lettuce intends. */
  RedisCommands<String, String> raw() {
    return connection.sync();
  }

  /** The server's command counters, read over a connection that carries no load. */
  CommandStats commandStats() {
    return new CommandStats(admin.sync());
  }

  /** The Redis server's version, for the report. */
  String serverVersion() {
    for (String line : admin.sync().info("server").split("\r?\n")) {
      if (line.startsWith("redis_version:")) {
        return line.substring("redis_version:".length()).trim();
      }
    }
    return "unknown";
  }

  /** Deletes every key of this run; returns how many there were. */
  long deleteKeys() {
    return deleteKeys("");
  }

  /**
   * Deletes the keys of this run that start with {@code prefix() + part}, and waits until Redis has
   * freed them ({@code UNLINK} frees in the background), so that the next scenario neither works on
   * a keyspace grown by an earlier one nor pays for freeing it. Returns how many keys there were.
   */
  long deleteKeysAndWait(String part) throws InterruptedException {
    long deleted = deleteKeys(part);
    // Bounded: on a shared server someone else's UNLINKs count too.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (lazyFreePending() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    return deleted;
  }

  private long lazyFreePending() {
    for (String line : admin.sync().info("memory").split("\r?\n")) {
      if (line.startsWith("lazyfree_pending_objects:")) {
        return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
      }
    }
    return 0;
  }

  private long deleteKeys(String part) {
    return deleteKeysMatching(prefix + part + "*");
  }

  /**
   * Deletes the keys that match the glob {@code pattern}, for the few peers that keep keys outside
   * the run's prefix; the pattern must still name this run, as its prefix does. Returns how many.
   */
  long deleteKeysMatching(String pattern) {
    if (!pattern.contains(prefix)) {
      throw new IllegalArgumentException(pattern + " does not name this run's keys");
    }
    RedisCommands<String, String> sync = admin.sync();
    ScanArgs args = ScanArgs.Builder.matches(pattern).limit(SCAN_COUNT);
    long deleted = 0;
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      KeyScanCursor<String> page = sync.scan(cursor, args);
      List<String> keys = page.getKeys();
      if (!keys.isEmpty()) {
        deleted += sync.unlink(keys.toArray(String[]::new));
      }
      cursor = page;
    } while (!cursor.isFinished());
    return deleted;
  }

  @Override
  public void close() {
    try {
      deleteKeys();
    } finally {
      admin.close();
      connection.close();
      client.shutdown();
    }
  }
}
