package dev.idem.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The lock-peers and dedup-peers benchmarks on the real servers (Redis, PostgreSQL, RabbitMQ):
 * every peer sets up and runs, and the counts the reports rest on can show a fault: a lock that
 * excludes nothing is caught doubling, a de-duplicator that marks a message before its effect is
 * caught losing the ones whose first handling failed.
 */
class PeerBenchIT {

  private static final LockPeersBench.Mode CONTENDED = LockPeersBench.MODES.get(1);
  private static final LoadDriver SHORT =
      new LoadDriver(CONTENDED.threads(), Duration.ofMillis(200), Duration.ofMillis(500));

  @Test
  void everyLockPeerExcludesUnderContention() throws Exception {
    try (RedisRig rig = RedisRig.fromEnvironment()) {
      List<LockPeer> peers = new ArrayList<>(RedisLockPeers.all(rig));
      peers.addAll(JdbcLockPeers.all(BenchDatabase.postgresql().url()));
      try {
        for (LockPeer peer : peers) {
          PeerRow row = LockPeersBench.measure(CONTENDED, peer, SHORT);
          assertThat(row.counted()).as(peer.name()).isPositive();
          assertThat(row.doubled()).as(peer.name()).isZero();
        }
      } finally {
        Peers.closeAll(peers.stream().map(LockPeer::shutdown).toList());
      }
    }
  }

  @Test
  void aLockThatExcludesNothingIsCaughtDoubling() throws Exception {
    LockPeer none = new LockPeer("no lock", "none", (node, lock, wait) -> () -> {}, () -> {});

    PeerRow row = LockPeersBench.measure(CONTENDED, none, SHORT);

    assertThat(row.doubled()).isPositive();
  }

  @Test
  void inBatchesIdemLosesAndDoublesNothingAndThePeersLoseWhatTheyLoseAlone() throws Exception {
    int messages = 500;
    try (RedisRig rig = RedisRig.fromEnvironment();
        HikariDataSource effects =
            BenchJdbc.pool(BenchDatabase.postgresql().url(), "dedup-batch-effects-test", 2)) {
      DedupPeersBench.createEffects(effects);
      List<DedupPeer> single = DedupPeers.all(rig, BenchDatabase.postgresql().url());
      try {
        List<DedupBatchPeers.BatchPeer> peers =
            DedupBatchPeers.all(rig, BenchDatabase.postgresql().url(), single);
        try {
          for (DedupBatchPeers.BatchPeer peer : peers) {
            lostOnlyWhatTheMarkFirstReceiverLoses(
                DedupPeersBench.turn(peer, 1, messages, effects), messages);
          }
        } finally {
          Peers.closeAll(peers.stream().map(DedupBatchPeers.BatchPeer::ownShutdown).toList());
        }
      } finally {
        try {
          Peers.closeAll(single.stream().map(DedupPeer::shutdown).toList());
        } finally {
          DedupPeersBench.dropEffects(effects);
        }
      }
    }
  }

  @Test
  void idemLosesNothingWhereTheMarkFirstReceiverLosesEveryFailedFirstHandling() throws Exception {
    int messages = 500;
    try (RedisRig rig = RedisRig.fromEnvironment();
        HikariDataSource effects =
            BenchJdbc.pool(BenchDatabase.postgresql().url(), "dedup-effects-test", 2)) {
      DedupPeersBench.createEffects(effects);
      List<DedupPeer> peers = DedupPeers.all(rig, BenchDatabase.postgresql().url());
      try {
        for (DedupPeer peer : peers) {
          lostOnlyWhatTheMarkFirstReceiverLoses(
              DedupPeersBench.turn(peer, 1, messages, effects), messages);
        }
      } finally {
        try {
          Peers.closeAll(peers.stream().map(DedupPeer::shutdown).toList());
        } finally {
          DedupPeersBench.dropEffects(effects);
        }
      }
    }
  }

  // Nothing doubled, every failed first handling requeued, and nothing lost but by Spring
  // Integration's Redis receiver, whose mark stays when the handling fails.
  private static void lostOnlyWhatTheMarkFirstReceiverLoses(DedupPeersBench.Row row, int messages) {
    assertThat(row.doubled()).as(row.peer()).isZero();
    long failed = messages / DedupPeersBench.FAIL_EVERY;
    assertThat(row.requeued()).as(row.peer()).isGreaterThanOrEqualTo(failed);
    // Camel takes a failed id back, so the requeued first copy is applied; Spring Integration's
    // Redis mark stays, and its redelivery is discarded
    assertThat(row.lost())
        .as(row.peer())
        .isEqualTo(row.peer().equals(DedupPeers.SPRING_REDIS) ? failed : 0);
  }
}
