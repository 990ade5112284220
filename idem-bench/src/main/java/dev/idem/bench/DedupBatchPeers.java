package dev.idem.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.PendingOutcome;
import dev.idem.core.consumer.IdempotentConsumer;
import dev.idem.jdbc.JdbcDialect;
import dev.idem.jdbc.JdbcInbox;
import dev.idem.jdbc.JdbcSchema;
import dev.idem.jdbc.JdbcStoreConfig;
import dev.idem.redis.RedisIdempotencyStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * The de-duplicators of the dedup-peers benchmark's batch rounds, where each consumer takes up to
 * {@value #BATCH} deliveries at once: Idem's {@link IdempotentConsumer#processEach} on Redis, which
 * claims a batch's ids together, its effects committing together and their completions sent
 * together after that commit, Idem's {@link JdbcInbox#receiveEach} on PostgreSQL, which writes a
 * batch's rows and effects in one transaction, and the peers of the single-message rounds, which
 * have no batch call and take a batch message by message. Outside the inbox, every effect commits
 * on its own, as in the single-message rounds.
 */
final class DedupBatchPeers {

  static final String IDEM_REDIS = "Idem IdempotentConsumer.processEach, Redis store";
  static final String IDEM_JDBC = "Idem JdbcInbox.receiveEach";

  /** The most deliveries a consumer handles at once. */
  static final int BATCH = 100;

  private static final String RECORDS_TABLE = "bench_peer_batch_records";

  private DedupBatchPeers() {}

  /** The effect of a message, by its id. */
  @FunctionalInterface
  interface Effects {
    DedupPeer.Effect of(String messageId);
  }

  /** Handles a batch of deliveries. */
  @FunctionalInterface
  interface Receive {
    /** The places of those of {@code ids} to deliver again; the others were handled. */
    BitSet receive(List<String> ids, Effects effects) throws Exception;
  }

  /**
   * A de-duplicator of the batch rounds.
   *
   * @param store the server that remembers the handled ids
   * @param ownShutdown what closes what this peer made itself (a single-message peer it wraps is
   *     closed with the single-message peers)
   */
  record BatchPeer(String name, String store, Receive receive, AutoCloseable ownShutdown) {}

  /** Idem's two, each before the peers on its server, which wrap the single-message ones. */
  static List<BatchPeer> all(RedisRig rig, String url, List<DedupPeer> single) throws Exception {
    List<BatchPeer> peers = new ArrayList<>();
    try {
      peers.add(idemRedis(rig, url));
      for (DedupPeer peer : single) {
        if (peer.store().equals("Redis") && !peer.name().startsWith("Idem")) {
          peers.add(oneByOne(peer));
        }
      }
      peers.add(idemJdbc(url));
      for (DedupPeer peer : single) {
        if (peer.store().equals("PostgreSQL") && !peer.name().startsWith("Idem")) {
          peers.add(oneByOne(peer));
        }
      }
      return peers;
    } catch (Exception | Error e) {
      Peers.closeAll(peers.stream().map(BatchPeer::ownShutdown).toList());
      throw e;
    }
  }

  /**
   * {@code IdempotentConsumer.processEach} on a {@link RedisIdempotencyStore}, a batch's effects in
   * one PostgreSQL transaction and their outcomes held ({@link dev.idem.core.Deferral}) until it
   * commits.
   */
  static BatchPeer idemRedis(RedisRig rig, String url) {
    HikariDataSource pool = BenchJdbc.pool(url, "dedup-batch-idem-redis", DedupPeers.POOL);
    RedisIdempotencyStore store =
        RedisIdempotencyStore.create(rig.client(), rig.prefix() + "dedup-batch-idem:");
    Idempotency engine = Idempotency.builder(store).build();
    // A copy another consumer handles is refused, not waited for: that consumer's claim is held
    // until its whole batch commits, and two batches waiting on each other's would both stall.
    IdempotentConsumer consumer = new IdempotentConsumer(engine, DedupPeers.GROUP);
    return new BatchPeer(
        IDEM_REDIS,
        "Redis",
        (ids, effects) -> inOneTransaction(consumer, pool, ids, effects),
        () -> {
          engine.close();
          store.close();
          pool.close();
        });
  }

  /**
   * {@link JdbcInbox#receiveEach} on PostgreSQL: a batch's inbox rows written by one insert in the
   * transaction of its effects, one commit a batch, each effect after a savepoint.
   */
  static BatchPeer idemJdbc(String url) {
    HikariDataSource pool = BenchJdbc.pool(url, "dedup-batch-idem-jdbc", DedupPeers.POOL);
    JdbcStoreConfig.Builder config =
        JdbcStoreConfig.custom(JdbcDialect.postgresql()).table(RECORDS_TABLE);
    JdbcSchema.createIfMissing(pool, config.build());
    JdbcInbox inbox = new JdbcInbox(pool, config, DedupPeers.GROUP);
    return new BatchPeer(
        IDEM_JDBC,
        "PostgreSQL",
        (ids, effects) -> {
          try {
            return failed(
                inbox.receiveEach(
                    ids, (index, connection) -> effects.of(ids.get(index)).apply(connection)));
          } catch (IdempotencyStoreException e) {
            return all(ids); // nothing of the batch is known to have committed
          }
        },
        () -> {
          inbox.close();
          BenchJdbc.execute(pool, "DROP TABLE IF EXISTS " + RECORDS_TABLE);
          pool.close();
        });
  }

  // The batch's effects in one transaction, each after a savepoint, every outcome held until it
  // commits, then completed together; processEach gives back the claims of the messages that
  // failed. Answers the places of the messages to deliver again.
  private static BitSet inOneTransaction(
      IdempotentConsumer consumer, HikariDataSource pool, List<String> ids, Effects effects)
      throws SQLException {
    List<PendingOutcome> held = new ArrayList<>();
    List<IdempotentConsumer.Handled> handled;
    try (Connection c = pool.getConnection()) {
      c.setAutoCommit(false);
      try {
        handled =
            consumer.processEach(
                ids,
                (index, ctx) -> {
                  Savepoint before = c.setSavepoint();
                  try {
                    effects.of(ids.get(index)).apply(c);
                  } catch (Exception e) {
                    c.rollback(before);
                    throw e;
                  }
                },
                held::add);
      } catch (RuntimeException | Error e) {
        c.rollback();
        held.forEach(PendingOutcome::release);
        throw e;
      }
      try {
        c.commit();
      } catch (SQLException e) {
        // whether the effects are there is unknown: the claims stay until their leases end
        held.forEach(PendingOutcome::keep);
        return all(ids);
      }
    }
    // processEach gave back the claims of the messages that failed; the others commit now
    PendingOutcome.completeAll(held);
    return failed(handled);
  }

  // The places of the messages that failed.
  private static BitSet failed(List<IdempotentConsumer.Handled> handled) {
    BitSet again = new BitSet();
    for (int i = 0; i < handled.size(); i++) {
      if (handled.get(i) instanceof IdempotentConsumer.Handled.Failed failed && failed.requeue()) {
        again.set(i);
      }
    }
    return again;
  }

  private static BitSet all(List<String> ids) {
    BitSet again = new BitSet();
    again.set(0, ids.size());
    return again;
  }

  // A peer without a batch call takes the batch message by message; one that fails comes again.
  private static BatchPeer oneByOne(DedupPeer peer) {
    return new BatchPeer(
        peer.name(),
        peer.store(),
        (ids, effects) -> {
          BitSet again = new BitSet();
          for (int i = 0; i < ids.size(); i++) {
            try {
              peer.receive().receive(ids.get(i), effects.of(ids.get(i)));
            } catch (Exception e) {
              again.set(i);
            }
          }
          return again;
        },
        () -> {});
  }
}
