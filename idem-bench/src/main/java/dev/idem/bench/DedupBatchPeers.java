package dev.idem.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.consumer.IdempotentConsumer;
import dev.idem.jdbc.JdbcDialect;
import dev.idem.jdbc.JdbcInbox;
import dev.idem.jdbc.JdbcSchema;
import dev.idem.jdbc.JdbcStoreConfig;
import dev.idem.redis.RedisIdempotencyStore;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The de-duplicators of the dedup-peers benchmark's batch rounds, where each consumer takes up to
 * {@value #BATCH} deliveries at once: Idem's {@link IdempotentConsumer#processAll} on Redis, which
 * claims a batch's ids together and sends their completions together, Idem's {@link
 * JdbcInbox#receiveAll} on PostgreSQL, which writes a batch's rows and effects in one transaction,
 * and the peers of the single-message rounds, which have no batch call and take a batch message by
 * message. Outside the inbox, every effect commits on its own, as in the single-message rounds.
 */
final class DedupBatchPeers {

  static final String IDEM_REDIS = "Idem IdempotentConsumer.processAll, Redis store";
  static final String IDEM_JDBC = "Idem JdbcInbox.receiveAll";

  /** The most deliveries a consumer handles at once. */
  static final int BATCH = 100;

  private static final String RECORDS_TABLE = "bench_peer_batch_records";

  // A copy handled by another consumer right now is waited out, not a reason to end the batch
  // and send the rest of it round again.
  private static final IdempotencyConfig WAITS =
      IdempotencyConfig.from(IdempotentConsumer.DEFAULT_CONFIG)
          .waitInProgress(Duration.ofSeconds(10))
          .build();

  private DedupBatchPeers() {}

  /** The effect of a message, by its id. */
  @FunctionalInterface
  interface Effects {
    DedupPeer.Effect of(String messageId);
  }

  /** Handles a batch of deliveries. */
  @FunctionalInterface
  interface Receive {
    /** How many of {@code ids}, from the first, were handled (the rest come again). */
    int receive(List<String> ids, Effects effects) throws Exception;
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

  /** {@code IdempotentConsumer.processAll} on a {@link RedisIdempotencyStore}. */
  static BatchPeer idemRedis(RedisRig rig, String url) {
    HikariDataSource pool = BenchJdbc.pool(url, "dedup-batch-idem-redis", DedupPeers.POOL);
    RedisIdempotencyStore store =
        RedisIdempotencyStore.create(rig.client(), rig.prefix() + "dedup-batch-idem:");
    Idempotency engine = Idempotency.builder(store).build();
    IdempotentConsumer consumer = new IdempotentConsumer(engine, DedupPeers.GROUP, WAITS);
    return new BatchPeer(
        IDEM_REDIS,
        "Redis",
        (ids, effects) -> processAll(consumer, pool, ids, effects),
        () -> {
          engine.close();
          store.close();
          pool.close();
        });
  }

  /**
   * {@link JdbcInbox#receiveAll} on PostgreSQL: a batch's inbox rows written by one insert in the
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
          int[] running = {0};
          try {
            inbox.receiveAll(
                ids,
                (index, connection) -> {
                  running[0] = index;
                  effects.of(ids.get(index)).apply(connection);
                });
            return ids.size();
          } catch (IdempotencyStoreException e) {
            return 0; // nothing of the batch is known to have committed
          } catch (Exception e) {
            // the failed message's effect was taken back; the messages before it committed
            return running[0];
          }
        },
        () -> {
          inbox.close();
          BenchJdbc.execute(pool, "DROP TABLE IF EXISTS " + RECORDS_TABLE);
          pool.close();
        });
  }

  // The messages before the first that failed are handled (a duplicate right before it may be
  // counted as not handled: it comes again and is answered as a duplicate).
  private static int processAll(
      IdempotentConsumer consumer, HikariDataSource pool, List<String> ids, Effects effects) {
    int[] handled = {0};
    try {
      consumer.processAll(
          ids,
          (index, ctx) -> {
            try (Connection connection = pool.getConnection()) {
              effects.of(ids.get(index)).apply(connection);
            }
            handled[0] = index + 1;
          });
      return ids.size();
    } catch (Exception e) {
      return handled[0];
    }
  }

  // A peer without a batch call takes the batch message by message, and stops at the first that
  // fails.
  private static BatchPeer oneByOne(DedupPeer peer) {
    return new BatchPeer(
        peer.name(),
        peer.store(),
        (ids, effects) -> {
          for (int i = 0; i < ids.size(); i++) {
            try {
              peer.receive().receive(ids.get(i), effects.of(ids.get(i)));
            } catch (Exception e) {
              return i;
            }
          }
          return ids.size();
        },
        () -> {});
  }
}
