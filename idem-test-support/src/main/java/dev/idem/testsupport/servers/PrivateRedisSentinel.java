package dev.idem.testsupport.servers;

import java.io.File;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A private primary, a replica of it and a Sentinel watching both ({@link PrivateRedis} processes
 * on free ports), for failover tests: {@link #failover} kills the primary and waits until the
 * Sentinel has promoted the replica. Replication is asynchronous, as Redis's is: a write the
 * primary acknowledged just before it died may be missing on the replica.
 */
public final class PrivateRedisSentinel implements AutoCloseable {

  /** The name the Sentinel knows the primary by. */
  public static final String MASTER = "idem-primary";

  private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(60);

  private final PrivateRedis primary;
  private final PrivateRedis replica;
  private final PrivateRedis sentinel;

  private PrivateRedisSentinel(PrivateRedis primary, PrivateRedis replica, PrivateRedis sentinel) {
    this.primary = primary;
    this.replica = replica;
    this.sentinel = sentinel;
  }

  /**
   * Starts the three and returns once the replica is in sync and the Sentinel knows it.
   *
   * @param dir where their logs and the Sentinel's configuration go
   */
  public static PrivateRedisSentinel start(File dir) {
    if (!dir.isDirectory() && !dir.mkdirs()) {
      throw new IllegalStateException("cannot create " + dir);
    }
    PrivateRedis primary = PrivateRedis.start(new File(dir, "primary.log"));
    PrivateRedis replica = null;
    PrivateRedis sentinel = null;
    try {
      replica =
          PrivateRedis.start(
              new File(dir, "replica.log"),
              "--replicaof",
              "127.0.0.1",
              Integer.toString(primary.port()));
      PrivateRedis watched = replica;
      await(
          "the replica to be in sync",
          () -> watched.command("INFO replication").contains("master_link_status:up"));
      sentinel = PrivateRedis.startSentinel(dir, MASTER, primary.port());
      PrivateRedis watching = sentinel;
      await(
          "the Sentinel to see the replica",
          () ->
              watching
                  .command("SENTINEL replicas " + MASTER)
                  .contains(Integer.toString(watched.port())));
      return new PrivateRedisSentinel(primary, replica, sentinel);
    } catch (RuntimeException e) {
      primary.close();
      if (replica != null) {
        replica.close();
      }
      if (sentinel != null) {
        sentinel.close();
      }
      throw e;
    }
  }

  /** The Lettuce URI of the primary through the Sentinel. */
  public String url() {
    return "redis-sentinel://127.0.0.1:" + sentinel.port() + "?sentinelMasterId=" + MASTER;
  }

  /** The port of the server the Sentinel names primary now. */
  public int primaryPort() {
    String reply = sentinel.command("SENTINEL get-master-addr-by-name " + MASTER);
    String[] lines = reply.split("\r\n");
    // *2, $9, 127.0.0.1, $4, <port>
    if (lines.length < 5) {
      throw new IllegalStateException("Sentinel answered " + reply);
    }
    return Integer.parseInt(lines[4].trim());
  }

  PrivateRedis primary() {
    return primary;
  }

  PrivateRedis replica() {
    return replica;
  }

  /** The first primary's port. */
  public int firstPrimaryPort() {
    return primary.port();
  }

  /** The replica's port, primary after {@link #failover}. */
  public int replicaPort() {
    return replica.port();
  }

  /**
   * Kills the primary (SIGKILL) and waits until the Sentinel has promoted the replica.
   *
   * @return how long the promotion took
   */
  public Duration failover() {
    long began = System.nanoTime();
    primary.kill();
    await("the Sentinel to promote the replica", () -> primaryPort() == replica.port());
    await(
        "the replica to act as primary",
        () -> replica.command("INFO replication").contains("role:master"));
    return Duration.ofNanos(System.nanoTime() - began);
  }

  @Override
  public void close() {
    sentinel.close();
    replica.close();
    primary.close();
  }

  private static void await(String what, java.util.function.BooleanSupplier done) {
    long deadline = System.nanoTime() + WAIT_NANOS;
    while (System.nanoTime() < deadline) {
      try {
        if (done.getAsBoolean()) {
          return;
        }
      } catch (RuntimeException notYet) {
        // a server still starting, or a reply not ready
      }
      try {
        Thread.sleep(100); // polling servers that change on their own, not synchronising a test
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    throw new IllegalStateException("waited 60 s for " + what);
  }
}
