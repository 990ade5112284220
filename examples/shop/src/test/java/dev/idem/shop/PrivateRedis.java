package dev.idem.shop;

import static org.awaitility.Awaitility.await;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A redis-server of the test's own, on a free port in 7300-7399, so that it may be flushed: the
 * shared Redis at 6379 never is. Started by {@link #start()}, stopped by {@link #stop()}.
 */
final class PrivateRedis {

  private static final int FIRST_PORT = 7300;
  private static final int LAST_PORT = 7399;

  private final Process process;
  private final int port;

  private PrivateRedis(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** Starts redis-server without persistence and waits until it answers PING. */
  static PrivateRedis start() {
    int port = freePort();
    try {
      Process process =
          new ProcessBuilder(
                  "redis-server",
                  "--port",
                  String.valueOf(port),
                  "--bind",
                  "127.0.0.1",
                  "--save",
                  "",
                  "--appendonly",
                  "no")
              .redirectErrorStream(true)
              .redirectOutput(new File(System.getProperty("java.io.tmpdir"), "shop-redis-" + port))
              .start();
      PrivateRedis redis = new PrivateRedis(process, port);
      // Ours, not a server that took the port first: its process id is the one started here.
      String pid = "process_id:" + process.pid();
      await()
          .atMost(Duration.ofSeconds(20))
          .ignoreExceptions()
          .until(() -> process.isAlive() && redis.call(c -> c.sync().info("server")).contains(pid));
      return redis;
    } catch (IOException e) {
      throw new IllegalStateException("redis-server is needed on the PATH", e);
    }
  }

  String url() {
    return "redis://127.0.0.1:" + port;
  }

  /** Loses every key, as a Redis restarted without persistence does. */
  void flushAll() {
    call(c -> c.sync().flushall());
  }

  void stop() {
    process.destroy();
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(20, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  private <T> T call(java.util.function.Function<StatefulRedisConnection<String, String>, T> f) {
    RedisClient client = RedisClient.create(url());
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      return f.apply(connection);
    } finally {
      client.shutdown();
    }
  }

  private static int freePort() {
    for (int port = FIRST_PORT; port <= LAST_PORT; port++) {
      try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        return port;
      } catch (IOException taken) {
        // try the next one
      }
    }
    throw new IllegalStateException("no free port in " + FIRST_PORT + "-" + LAST_PORT);
  }
}
