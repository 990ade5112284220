package dev.idem.testsupport.servers;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A {@code redis-server} of a test's (or tool's) own, on a free port from 7300 to 7399, keeping
 * nothing on disk, so that it may be flushed, restarted or filled up: the shared Redis at 6379
 * never is. The one launcher of private Redis servers in the project ({@link PrivateRedisCluster}
 * forms a Cluster of them).
 *
 * <p>A test registers it with {@link ClosedAfterAll} so that it stops after the Spring context that
 * uses it has closed; a shutdown hook kills the server if the JVM ends first. It needs no test
 * library, so tools (the chaos tool) use it too.
 */
public final class PrivateRedis implements AutoCloseable {

  /** The range private servers take their port from. */
  public static final int FIRST_PORT = 7300;

  public static final int LAST_PORT = 7399;

  private static final long START_NANOS = TimeUnit.SECONDS.toNanos(20);

  // Redis Cluster talks between nodes on the client port + 10000.
  private static final int BUS_OFFSET = 10_000;

  private final int port;
  private final File log;
  private final List<String> options;
  private final Thread killer;
  private volatile @Nullable Process process;

  private PrivateRedis(int port, File log, List<String> options) {
    this.port = port;
    this.log = log;
    this.options = List.copyOf(options);
    this.killer = new Thread(this::kill, "stop redis-server " + port);
    Runtime.getRuntime().addShutdownHook(killer);
  }

  /** Starts one with default options, its output in the temporary folder. */
  public static PrivateRedis start(String... options) {
    return start(null, options);
  }

  /**
   * Starts one on the first free port of the range, and waits until it answers as the process
   * started here (another process may take a port first: then the next one is tried).
   *
   * @param log where the server's output goes (appended), or null for the temporary folder
   * @param options more {@code redis-server} options, such as {@code "--maxmemory", "2mb"}
   */
  public static PrivateRedis start(@Nullable File log, String... options) {
    return start(log, false, port -> server(port, List.of(options)));
  }

  /**
   * Starts a Sentinel that watches the primary on {@code primaryPort} under the name {@code
   * master}, alone in its quorum, and takes it for down after 2 s without an answer; its
   * configuration (which Sentinel rewrites) lives in {@code dir}.
   */
  static PrivateRedis startSentinel(File dir, String master, int primaryPort) {
    return start(
        new File(dir, "sentinel.log"),
        false,
        port -> {
          File conf = new File(dir, "sentinel-" + port + ".conf");
          String text =
              String.join(
                  "\n",
                  "port " + port,
                  "bind 127.0.0.1",
                  "dir " + dir.getPath(),
                  "sentinel monitor " + master + " 127.0.0.1 " + primaryPort + " 1",
                  "sentinel down-after-milliseconds " + master + " 2000",
                  "sentinel failover-timeout " + master + " 10000",
                  "");
          try {
            java.nio.file.Files.writeString(conf.toPath(), text);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
          return List.of(conf.getPath(), "--sentinel");
        });
  }

  /**
   * Starts one as a node of a Redis Cluster still to be formed ({@link PrivateRedisCluster}): its
   * cluster bus port (the client port + 10000) free as well, its node file in {@code dir}.
   */
  static PrivateRedis startClusterNode(File dir) {
    return start(
        new File(dir, "nodes.log"),
        true,
        port ->
            server(
                port,
                List.of(
                    "--cluster-enabled",
                    "yes",
                    "--cluster-config-file",
                    new File(dir, "nodes-" + port + ".conf").getPath(),
                    "--cluster-node-timeout",
                    "5000",
                    "--dir",
                    dir.getPath())));
  }

  // A server's arguments: its port on loopback, nothing kept on disk, then the caller's.
  // Each in a folder of its own, since a replica writes the primary's data there (dump.rdb) and
  // a server started later in the same folder would load it.
  private static List<String> server(int port, List<String> more) {
    List<String> args = new ArrayList<>(List.of("--port", Integer.toString(port)));
    args.addAll(List.of("--bind", "127.0.0.1", "--save", "", "--appendonly", "no"));
    try {
      args.addAll(List.of("--dir", Files.createTempDirectory("idem-redis-" + port).toString()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    args.addAll(more);
    return args;
  }

  private static PrivateRedis start(
      @Nullable File log, boolean withBus, java.util.function.IntFunction<List<String>> options) {
    int from = FIRST_PORT;
    for (int attempt = 0; attempt < 10; attempt++) {
      int port = freePort(from, withBus);
      File out =
          log != null ? log : new File(System.getProperty("java.io.tmpdir"), "redis-" + port);
      PrivateRedis redis = new PrivateRedis(port, out, options.apply(port));
      try {
        if (redis.launch()) {
          return redis;
        }
      } catch (RuntimeException | Error e) {
        redis.close();
        throw e;
      }
      redis.close();
      from = port + 1;
    }
    throw new IllegalStateException(
        "could not start a redis-server in " + FIRST_PORT + "-" + LAST_PORT);
  }

  public int port() {
    return port;
  }

  public String url() {
    return "redis://127.0.0.1:" + port;
  }

  /** Deletes every key, as a Redis restarted without persistence loses them. */
  public void flushAll() {
    String reply = command("FLUSHALL");
    if (!reply.startsWith("+OK")) {
      throw new IllegalStateException("FLUSHALL answered " + reply);
    }
  }

  /** Kills the server (an abrupt loss); {@link #restart} starts it again. */
  public void kill() {
    Process p = process;
    if (p == null || !p.isAlive()) {
      return;
    }
    p.destroyForcibly();
    try {
      p.waitFor(20, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Kills the server (an abrupt loss) and starts it again, empty, on the same port. */
  public void restart() {
    kill();
    if (!launch()) {
      throw new IllegalStateException("redis-server did not come back on port " + port);
    }
  }

  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(killer);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs anyway
    }
    kill();
  }

  /** Starts the process; true once it answers with its own process id, false if it died. */
  private boolean launch() {
    List<String> command = new ArrayList<>(List.of("redis-server"));
    command.addAll(options);
    Process process;
    try {
      process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log))
              .start();
    } catch (IOException e) {
      throw new IllegalStateException("redis-server is needed on the PATH", e);
    }
    this.process = process;
    String ours = "process_id:" + process.pid();
    long deadline = System.nanoTime() + START_NANOS;
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        return false;
      }
      try {
        if (command("INFO server").contains(ours)) {
          return true;
        }
      } catch (UncheckedIOException notYet) {
        // not listening yet
      }
      try {
        Thread.sleep(50); // waiting for a process to come up, not synchronising a test
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    throw new IllegalStateException("redis-server on port " + port + " did not answer in 20 s");
  }

  // One inline command and the start of its reply: enough to check, flush and join servers,
  // without a client library in this module.
  String command(String inline) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
      socket.setSoTimeout(5000);
      OutputStream out = socket.getOutputStream();
      out.write((inline + "\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      byte[] buffer = new byte[8192];
      int n = in.read(buffer);
      return n <= 0 ? "" : new String(buffer, 0, n, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static int freePort(int from, boolean withBus) {
    for (int port = from; port <= LAST_PORT; port++) {
      if (free(port) && (!withBus || free(port + BUS_OFFSET))) {
        return port;
      }
    }
    throw new IllegalStateException("no free port in " + FIRST_PORT + "-" + LAST_PORT);
  }

  private static boolean free(int port) {
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return true;
    } catch (IOException taken) {
      return false;
    }
  }
}
