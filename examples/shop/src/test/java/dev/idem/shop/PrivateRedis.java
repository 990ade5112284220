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

  /**
   * Starts redis-server without persistence and waits until it answers; when another process takes
   * the port first (other tests use this range too), tries the next free one.
   */
  static PrivateRedis start() {
    int from = FIRST_PORT;
    for (int attempt = 0; attempt < 10; attempt++) {
      int port = freePort(from);
      PrivateRedis redis = launch(port);
      if (redis.awaitReady()) {
        return redis;
      }
      redis.stop();
      from = port + 1;
    }
    throw new IllegalStateException(
        "could not start a redis-server in " + FIRST_PORT + "-" + LAST_PORT);
  }

  private static PrivateRedis launch(int port) {
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
      return new PrivateRedis(process, port);
    } catch (IOException e) {
      throw new IllegalStateException("redis-server is needed on the PATH", e);
    }
  }

  // True once the server answers as ours (the process id it reports is the one started here, not
  // a server that took the port first); false when the process ended instead.
  private boolean awaitReady() {
    String pid = "process_id:" + process.pid();
    return await()
            .atMost(Duration.ofSeconds(20))
            .ignoreExceptions()
            .until(
                () -> !process.isAlive() || call(c -> c.sync().info("server")).contains(pid),
                done -> done)
        && process.isAlive();
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

  private static int freePort(int from) {
    for (int port = from; port <= LAST_PORT; port++) {
      try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        return port;
      } catch (IOException taken) {
        // try the next one
      }
    }
    throw new IllegalStateException("no free port in " + FIRST_PORT + "-" + LAST_PORT);
  }
}
