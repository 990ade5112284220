package dev.idem.redis;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A throwaway Redis Cluster of three primaries on free loopback ports, started with {@code
 * redis-server} and joined with {@code redis-cli --cluster create}: no persistence, data in a
 * temporary directory, stopped by {@link #close()} or, failing that, when the JVM exits. It writes
 * its seed address to a file named after this JVM's pid, so that a crash test's child JVM can find
 * it.
 */
final class RedisClusterHarness implements AutoCloseable {

  private static final int NODES = 3;
  private static final int FIRST_PORT = 7100;
  private static final int PORT_RANGE = 800;
  // Redis Cluster talks between nodes on the client port + 10000.
  private static final int BUS_OFFSET = 10_000;
  private static final long STARTUP_NANOS = TimeUnit.SECONDS.toNanos(20);

  private final Path dir;
  private final List<Integer> ports = new ArrayList<>();
  private final List<Process> servers = new ArrayList<>();
  private final Thread onExit = new Thread(this::kill, "redis-cluster-harness-exit");

  private RedisClusterHarness(Path dir) {
    this.dir = dir;
  }

  /** Starts the three nodes, joins them and waits until the cluster serves every slot. */
  static RedisClusterHarness start() throws IOException, InterruptedException {
    RedisClusterHarness cluster =
        new RedisClusterHarness(Files.createTempDirectory("idem-redis-cluster"));
    Runtime.getRuntime().addShutdownHook(cluster.onExit);
    try {
      cluster.startNodes();
      cluster.join();
      Files.writeString(seedFile(ProcessHandle.current().pid()), cluster.seedUri());
      return cluster;
    } catch (IOException | InterruptedException | RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  /** The seed address written by the cluster harness of the JVM with process id {@code pid}. */
  static String seedUriOf(long pid) {
    try {
      return Files.readString(seedFile(pid)).trim();
    } catch (IOException e) {
      throw new IllegalStateException("no Redis Cluster started by process " + pid, e);
    }
  }

  String seedUri() {
    return "redis://127.0.0.1:" + ports.get(0);
  }

  private void startNodes() throws IOException, InterruptedException {
    int port = FIRST_PORT + ThreadLocalRandom.current().nextInt(PORT_RANGE);
    while (ports.size() < NODES) {
      port = port >= FIRST_PORT + PORT_RANGE ? FIRST_PORT : port + 1;
      if (!free(port) || !free(port + BUS_OFFSET)) {
        continue;
      }
      servers.add(
          new ProcessBuilder(
                  "redis-server",
                  "--port",
                  Integer.toString(port),
                  "--bind",
                  "127.0.0.1",
                  "--cluster-enabled",
                  "yes",
                  "--cluster-config-file",
                  dir.resolve("nodes-" + port + ".conf").toString(),
                  "--cluster-node-timeout",
                  "5000",
                  "--dir",
                  dir.toString(),
                  "--save",
                  "",
                  "--appendonly",
                  "no",
                  "--logfile",
                  dir.resolve("redis-" + port + ".log").toString())
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("stdout-" + port + ".log").toFile())
              .start());
      ports.add(port);
    }
    for (int p : ports) {
      awaitOutput(p, List.of("ping"), "PONG");
    }
  }

  private void join() throws IOException, InterruptedException {
    List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
    ports.forEach(p -> create.add("127.0.0.1:" + p));
    create.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
    String out = run(create);
    if (!out.contains("[OK] All 16384 slots covered")) {
      throw new IllegalStateException("redis-cli --cluster create failed:\n" + out);
    }
    for (int p : ports) {
      awaitOutput(p, List.of("cluster", "info"), "cluster_state:ok");
    }
  }

  private void awaitOutput(int port, List<String> command, String expected)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + STARTUP_NANOS;
    List<String> cli = new ArrayList<>(List.of("redis-cli", "-p", Integer.toString(port)));
    cli.addAll(command);
    String out = "";
    while (System.nanoTime() < deadline) {
      out = run(cli);
      if (out.contains(expected)) {
        return;
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException(
        "Redis on port " + port + " never answered " + expected + "; last: " + out);
  }

  private static String run(List<String> command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    try (InputStream in = p.getInputStream()) {
      String out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor(10, TimeUnit.SECONDS);
      return out;
    }
  }

  private static boolean free(int port) {
    try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      return true;
    } catch (IOException inUse) {
      return false;
    }
  }

  private static Path seedFile(long pid) {
    return Path.of(System.getProperty("java.io.tmpdir"), "idem-redis-cluster-" + pid + ".uri");
  }

  /** Stops the nodes and deletes their files. */
  @Override
  public void close() throws IOException, InterruptedException {
    for (Process server : servers) {
      server.destroy();
    }
    for (Process server : servers) {
      if (!server.waitFor(5, TimeUnit.SECONDS)) {
        server.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    }
    try {
      Runtime.getRuntime().removeShutdownHook(onExit);
    } catch (IllegalStateException exiting) {
      // the JVM is already shutting down and runs the hook anyway
    }
    Files.deleteIfExists(seedFile(ProcessHandle.current().pid()));
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(f);
      }
    }
  }

  private void kill() {
    servers.forEach(Process::destroyForcibly);
  }
}
