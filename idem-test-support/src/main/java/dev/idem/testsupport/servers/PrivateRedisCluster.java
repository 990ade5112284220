package dev.idem.testsupport.servers;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;

/**
 * A Redis Cluster of three primaries of a test's own: three {@link PrivateRedis} nodes joined with
 * {@code redis-cli --cluster create}, nothing kept on disk but their node files in a temporary
 * folder. It writes its seed address to a file named after this JVM's process id, so that a crash
 * test's child JVM finds the same Cluster ({@link #seedUrlOf(long)}).
 */
public final class PrivateRedisCluster implements AutoCloseable {

  private static final int NODES = 3;
  private static final Duration READY = Duration.ofSeconds(20);

  private final Path dir;
  private final List<PrivateRedis> nodes = new ArrayList<>();

  private PrivateRedisCluster(Path dir) {
    this.dir = dir;
  }

  /** Starts the nodes, joins them and returns once every node serves all slots. */
  public static PrivateRedisCluster start() {
    PrivateRedisCluster cluster;
    try {
      cluster = new PrivateRedisCluster(Files.createTempDirectory("idem-redis-cluster"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try {
      for (int i = 0; i < NODES; i++) {
        cluster.nodes.add(PrivateRedis.startClusterNode(cluster.dir.toFile()));
      }
      cluster.join();
      Files.writeString(seedFile(ProcessHandle.current().pid()), cluster.seedUrl());
      return cluster;
    } catch (IOException e) {
      cluster.close();
      throw new UncheckedIOException(e);
    } catch (RuntimeException | Error e) {
      cluster.close();
      throw e;
    }
  }

  /** The address of one node, from which a client finds the others. */
  public String seedUrl() {
    return nodes.get(0).url();
  }

  /** The seed address written by the Cluster of the JVM with process id {@code pid}. */
  public static String seedUrlOf(long pid) {
    try {
      return Files.readString(seedFile(pid)).trim();
    } catch (IOException e) {
      throw new IllegalStateException("no Redis Cluster started by process " + pid, e);
    }
  }

  private void join() {
    List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
    nodes.forEach(n -> create.add("127.0.0.1:" + n.port()));
    create.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
    String out = run(create);
    if (!out.contains("[OK] All 16384 slots covered")) {
      throw new IllegalStateException("redis-cli --cluster create failed:\n" + out);
    }
    for (PrivateRedis node : nodes) {
      Awaitility.await("Redis Cluster node " + node.port() + " ready")
          .atMost(READY)
          .pollInterval(Duration.ofMillis(50))
          .until(() -> node.command("CLUSTER INFO").contains("cluster_state:ok"));
    }
  }

  private static String run(List<String> command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      try (InputStream in = p.getInputStream()) {
        String out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(10, TimeUnit.SECONDS);
        return out;
      }
    } catch (IOException e) {
      throw new IllegalStateException("redis-cli is needed on the PATH", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static Path seedFile(long pid) {
    return Path.of(System.getProperty("java.io.tmpdir"), "idem-redis-cluster-" + pid + ".uri");
  }

  /** Stops the nodes and deletes their files. */
  @Override
  public void close() {
    nodes.forEach(PrivateRedis::close);
    try {
      Files.deleteIfExists(seedFile(ProcessHandle.current().pid()));
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(f);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
