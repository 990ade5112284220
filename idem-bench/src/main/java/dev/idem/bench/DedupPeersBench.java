package dev.idem.bench;

import dev.idem.testsupport.Machine;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;

/**
 * Idem's message de-duplication against Spring Integration's idempotent receiver and Camel's
 * idempotent consumer, on the same RabbitMQ, Redis and PostgreSQL in one run: every message is
 * delivered twice (half of the copies right behind the first, half after all the others), and the
 * first handling of every {@value #FAIL_EVERY}th message fails before its effect, as a downstream
 * call that timed out would, so that the broker delivers it again. The effects are rows in
 * PostgreSQL, counted afterwards: {@code doubled} rows beyond one per message, {@code lost}
 * messages without a row. Writes the {@code dedup-peers} section of {@code docs/benchmarks.md}.
 *
 * <p>Arguments: {@code --quick} for a short, rough run; {@code --doc=PATH} to write elsewhere;
 * {@code --only=TEXT} to run only the de-duplicators whose name contains it (with {@code --doc}).
 * RabbitMQ at {@code IDEM_RABBIT_URI} (default {@value RabbitQueue#DEFAULT_URI}), PostgreSQL at
 * {@code IDEM_POSTGRES_URL}, Redis at {@code IDEM_REDIS_URI}; the run deletes its queues, drops its
 * tables ({@code bench_peer_*}) and deletes its keys.
 */
public final class DedupPeersBench {

  /** Idem must reach this multiple of the peer's rate on the same server. */
  static final double AIM = 1.5;

  /** Channels consuming the queue at once, each with its own handler thread. */
  static final int CONSUMERS = 8;

  /** The first handling of every this-many-th message fails before its effect. */
  static final int FAIL_EVERY = 50;

  private static final String EFFECTS = "bench_peer_dedup_effects";
  private static final long DRAIN_LIMIT_SECONDS = 600;

  /**
   * One peer's rounds together.
   *
   * @param batch the most deliveries a consumer handled at once (1: one by one)
   * @param messages distinct messages published (each twice)
   * @param deliveries deliveries handled, redeliveries included
   * @param requeued deliveries whose handling threw, so the broker delivered them again
   * @param seconds time from each round's first delivery to its last settlement, summed
   * @param doubled effect rows beyond one per message (must be 0)
   * @param lost messages that never got their effect (must be 0)
   */
  record Row(
      String peer,
      String store,
      int batch,
      long messages,
      long deliveries,
      long requeued,
      double seconds,
      long doubled,
      long lost) {

    Row plus(Row other) {
      return new Row(
          peer,
          store,
          batch,
          messages + other.messages,
          deliveries + other.deliveries,
          requeued + other.requeued,
          seconds + other.seconds,
          doubled + other.doubled,
          lost + other.lost);
    }

    double messagesPerSecond() {
      return messages / seconds;
    }
  }

  private DedupPeersBench() {}

  public static void main(String[] args) throws Exception {
    RunArgs run = RunArgs.parse(args, List.of("only"), List.of());
    boolean quick = run.quick();
    Path doc = run.doc();
    String only = run.option("only", "");
    int messages = quick ? 2_000 : 10_000;
    int rounds = quick ? 1 : 3;
    Machine machine = Machine.current();
    Instant started = Instant.now();
    String url = BenchDatabase.postgresql().url();
    Map<String, Row> rows = new LinkedHashMap<>();
    try (RedisRig rig = RedisRig.fromEnvironment()) {
      List<DedupPeer> peers = new ArrayList<>();
      try (var effects = BenchJdbc.pool(url, "dedup-effects", 2)) {
        createEffects(effects);
        try {
          peers.addAll(DedupPeers.all(rig, url));
          for (int round = 1; round <= rounds; round++) {
            for (DedupPeer peer : peers) {
              if (peer.name().contains(only)) {
                record(rows, round, turn(peer, round, messages, effects));
              }
            }
          }
          List<DedupBatchPeers.BatchPeer> batchPeers = DedupBatchPeers.all(rig, url, peers);
          try {
            for (int round = 1; round <= rounds; round++) {
              for (DedupBatchPeers.BatchPeer peer : batchPeers) {
                if (peer.name().contains(only)) {
                  record(rows, round, turn(peer, round, messages, effects));
                }
              }
            }
          } finally {
            Peers.closeAll(
                batchPeers.stream().map(DedupBatchPeers.BatchPeer::ownShutdown).toList());
          }
        } finally {
          try {
            Peers.closeAll(peers.stream().map(DedupPeer::shutdown).toList());
          } finally {
            dropEffects(effects);
          }
        }
      }
    }
    DedupPeersSection section =
        new DedupPeersSection(
            List.copyOf(rows.values()),
            machine,
            Machine.current().loadAverage(),
            started,
            messages,
            rounds);
    List<String> lines = section.lines(BenchCharts.folder(doc));
    run.publish("dedup-peers", lines);
  }

  /** Creates the table the effects are written to. */
  static void createEffects(DataSource effects) throws SQLException {
    BenchJdbc.execute(
        effects,
        "CREATE TABLE IF NOT EXISTS "
            + EFFECTS
            + " (peer VARCHAR(100) NOT NULL, message_id VARCHAR(64) NOT NULL)");
  }

  /** Drops the effects table. */
  static void dropEffects(DataSource effects) throws SQLException {
    BenchJdbc.execute(effects, "DROP TABLE IF EXISTS " + EFFECTS);
  }

  private static void record(Map<String, Row> rows, int round, Row row) {
    rows.merge(row.peer() + "|" + row.batch(), row, Row::plus);
    System.out.printf(
        Locale.ROOT,
        "round %d: %s (batch %d): %.0f messages/s, %d deliveries, %d requeued, %d doubled, %d"
            + " lost%n",
        round,
        row.peer(),
        row.batch(),
        row.messagesPerSecond(),
        row.deliveries(),
        row.requeued(),
        row.doubled(),
        row.lost());
  }

  /** One round of a single-message de-duplicator, its ids prefixed {@code r<round>-}. */
  static Row turn(DedupPeer peer, int round, int messages, DataSource effects) throws Exception {
    return turn(
        peer.name(),
        peer.store(),
        1,
        "r" + round + "-",
        messages,
        effects,
        (queue, effectOf) ->
            queue.drain(id -> peer.receive().receive(id, effectOf.of(id)), DRAIN_LIMIT_SECONDS));
  }

  /** One round of a batch de-duplicator, its ids prefixed {@code b<round>-}. */
  static Row turn(DedupBatchPeers.BatchPeer peer, int round, int messages, DataSource effects)
      throws Exception {
    return turn(
        peer.name(),
        peer.store(),
        DedupBatchPeers.BATCH,
        "b" + round + "-",
        messages,
        effects,
        (queue, effectOf) ->
            queue.drainBatches(
                ids -> peer.receive().receive(ids, effectOf),
                DedupBatchPeers.BATCH,
                DRAIN_LIMIT_SECONDS));
  }

  /** How one round drains its queue, with each message's effect by its id. */
  @FunctionalInterface
  interface Drainer {
    RabbitQueue.Drained drain(RabbitQueue queue, DedupBatchPeers.Effects effectOf) throws Exception;
  }

  /**
   * One round of a de-duplicator: {@code messages} messages, each published twice, drained, and the
   * effects counted; needs {@link #createEffects}.
   */
  private static Row turn(
      String peer,
      String store,
      int batch,
      String prefix,
      int messages,
      DataSource effects,
      Drainer drainer)
      throws Exception {
    List<String> order = new ArrayList<>(2 * messages);
    for (int i = 0; i < messages; i++) {
      order.add(prefix + i);
      if (i % 2 == 0) {
        order.add(prefix + i);
      }
    }
    for (int i = 1; i < messages; i += 2) {
      order.add(prefix + i);
    }
    Set<String> failedOnce = ConcurrentHashMap.newKeySet();
    String insert = "INSERT INTO " + EFFECTS + " (peer, message_id) VALUES (?, ?)";
    RabbitQueue.Drained drained;
    try (RabbitQueue queue = new RabbitQueue(CONSUMERS)) {
      queue.publish(order);
      drained =
          drainer.drain(
              queue,
              id ->
                  connection -> {
                    int n = Integer.parseInt(id.substring(prefix.length()));
                    if (n % FAIL_EVERY == 0 && failedOnce.add(id)) {
                      throw new IllegalStateException("downstream call timed out");
                    }
                    try (PreparedStatement ps = connection.prepareStatement(insert)) {
                      ps.setString(1, peer);
                      ps.setString(2, id);
                      ps.executeUpdate();
                    }
                  });
    }
    long[] counted = count(effects, peer, prefix);
    return new Row(
        peer,
        store,
        batch,
        messages,
        drained.deliveries(),
        drained.requeued(),
        drained.seconds(),
        counted[0] - counted[1],
        messages - counted[1]);
  }

  // Rows and distinct messages of one peer's round.
  private static long[] count(DataSource effects, String peer, String prefix) throws SQLException {
    try (Connection connection = effects.getConnection();
        PreparedStatement ps =
            connection.prepareStatement(
                "SELECT count(*), count(DISTINCT message_id) FROM "
                    + EFFECTS
                    + " WHERE peer = ? AND message_id LIKE ?")) {
      ps.setString(1, peer);
      ps.setString(2, prefix + "%");
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new long[] {rs.getLong(1), rs.getLong(2)};
      }
    }
  }
}
