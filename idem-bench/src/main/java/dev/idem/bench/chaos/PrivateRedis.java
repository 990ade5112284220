package dev.idem.bench.chaos;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A redis-server of the tool's own, on a free port from 7300 to 7399, keeping nothing on disk. The
 * chaos run flushes and restarts this one only; the shared Redis on 6379 is never touched.
 */
final class PrivateRedis implements AutoCloseable {

  static final int FIRST_PORT = 7300;
  static final int LAST_PORT = 7399;

  private final int port;
  private final Path log;
  private Process process;

  private PrivateRedis(int port, Path log) {
    this.port = port;
    this.log = log;
  }

  /** Starts one on the first free port of the range. */
  static PrivateRedis start(Path log) throws IOException, InterruptedException {
    for (int port = FIRST_PORT; port <= LAST_PORT; port++) {
      if (free(port)) {
        PrivateRedis redis = new PrivateRedis(port, log);
        redis.launch();
        return redis;
      }
    }
    throw new IOException("no free port from " + FIRST_PORT + " to " + LAST_PORT);
  }

  int port() {
    return port;
  }

  /** Deletes every key (FLUSHALL) of this private server. */
  void flushAll() {
    if (port < FIRST_PORT || port > LAST_PORT) {
      throw new IllegalStateException("refusing to flush a Redis outside the private range");
    }
    RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", port));
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      c.sync().flushall();
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  /** Stops the server (SIGKILL: an abrupt loss) and starts it again, empty, on the same port. */
  void restart() throws IOException, InterruptedException {
    stop();
    launch();
  }

  private void launch() throws IOException, InterruptedException {
    process =
        new ProcessBuilder(
                "redis-server",
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no")
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IOException("redis-server on port " + port + " exited; see " + log);
      }
      if (answersPing()) {
        return;
      }
      Thread.sleep(100); // polling for a process to come up, not synchronising tests
    }
    throw new IOException("redis-server on port " + port + " did not answer in 20 s");
  }

  private boolean answersPing() {
    RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", port));
    try (StatefulRedisConnection<String, String> c = client.connect()) {
      return "PONG".equals(c.sync().ping());
    } catch (RuntimeException e) {
      return false;
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  private void stop() throws InterruptedException {
    if (process != null && process.isAlive()) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }

  static boolean free(int port) {
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  @Override
  public void close() throws InterruptedException {
    stop();
  }
}
