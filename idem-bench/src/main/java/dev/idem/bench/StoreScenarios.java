package dev.idem.bench;

import static dev.idem.testsupport.Stages.now;

import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.Outcome;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.jdbc.JdbcSchema;
import dev.idem.jdbc.JdbcStoreConfig;
import dev.idem.jdbc.JdbcTransactions;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;

/**
 * The operations the JDBC store benchmark times on one database, all on one pool: the raw insert
 * baseline, a store claim then complete, a replayed claim, and a business transaction with and
 * without {@code Idempotency.call(...).run} on a join-mode store. Each throws when the database
 * answers anything but the expected outcome, so that a fast wrong answer is never counted.
 */
final class StoreScenarios implements AutoCloseable {

  /** The store's table in this benchmark, apart from the tests' {@code idem_records}. */
  static final String STORE_TABLE = "idem_bench_records";

  /** The store's table for replays: filled once in setup, kept through every round. */
  static final String REPLAY_TABLE = "idem_bench_replays";

  private static final String SCOPE = "bench:orders:create";
  private static final Duration LEASE = IdempotencyConfig.DEFAULT_LEASE;
  private static final Duration RETENTION = IdempotencyConfig.DEFAULT_RETENTION;

  /** The outcome every completion stores. */
  static final byte[] RECEIPT =
      "{\"order\":\"created\",\"status\":201}".getBytes(StandardCharsets.UTF_8);

  private static final HexFormat HEX = HexFormat.of();

  private final BenchDatabase database;
  private final DataSource dataSource;
  private final JdbcIdempotencyStore store;
  private final JdbcIdempotencyStore replayStore;
  private final JdbcIdempotencyStore readCommittedStore;
  private final JdbcTransactions transactions;
  private final Idempotency joined;
  private List<IdempotencyKey> completedKeys = List.of();

  StoreScenarios(BenchDatabase database, DataSource dataSource) {
    this.database = database;
    this.dataSource = dataSource;
    JdbcStoreConfig plain = plainConfig(STORE_TABLE);
    this.store = new JdbcIdempotencyStore(dataSource, plain);
    this.replayStore = new JdbcIdempotencyStore(dataSource, plainConfig(REPLAY_TABLE));
    this.readCommittedStore =
        hasReadCommittedClaims()
            ? new JdbcIdempotencyStore(
                dataSource,
                JdbcStoreConfig.custom(database.dialect())
                    .table(STORE_TABLE)
                    .readCommittedClaims(true)
                    .build())
            : null;
    this.transactions = new JdbcTransactions(dataSource);
    JdbcStoreConfig join =
        JdbcStoreConfig.custom(database.dialect())
            .table(STORE_TABLE)
            .joinTransactions(transactions)
            .build();
    this.joined = Idempotency.builder(new JdbcIdempotencyStore(dataSource, join)).build();
  }

  /** Creates the benchmark's tables if missing. */
  void createTables() throws SQLException {
    JdbcSchema.createIfMissing(dataSource, plainConfig(STORE_TABLE));
    JdbcSchema.createIfMissing(dataSource, plainConfig(REPLAY_TABLE));
    JdbcSchema.createIfMissing(dataSource, plainConfig(BenchDatabase.PAIR_TABLE));
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      for (String ddl : database.createTables()) {
        s.execute(ddl);
      }
    }
  }

  /** The server's version, as the driver reports it. */
  String serverVersion() throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      return c.getMetaData().getDatabaseProductVersion();
    }
  }

  /**
   * Empties the tables the scenarios write to, so that each window starts from the same state; the
   * replayed keys stay.
   */
  void truncateWrittenTables() throws SQLException {
    truncate(
        STORE_TABLE,
        BenchDatabase.RAW_TABLE,
        BenchDatabase.BUSINESS_TABLE,
        BenchDatabase.PAIR_TABLE);
  }

  /**
   * Completes {@code count} new keys through the store into the replay table, on {@code threads}
   * threads, for {@link #replay} to claim again.
   */
  void completeReplayKeys(int count, int threads) throws SQLException, InterruptedException {
    truncate(REPLAY_TABLE);
    List<IdempotencyKey> keys = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      keys.add(newKey());
    }
    List<Thread> workers = new ArrayList<>();
    List<Throwable> failures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      List<IdempotencyKey> share = keys.subList(t * count / threads, (t + 1) * count / threads);
      Thread worker =
          new Thread(
              () -> {
                try {
                  share.forEach(key -> claimAndComplete(replayStore, key));
                } catch (RuntimeException e) {
                  synchronized (failures) {
                    failures.add(e);
                  }
                }
              },
              "bench-setup-" + t);
      workers.add(worker);
      worker.start();
    }
    for (Thread worker : workers) {
      worker.join();
    }
    if (!failures.isEmpty()) {
      throw new IllegalStateException("setting up the replayed keys failed", failures.get(0));
    }
    completedKeys = List.copyOf(keys);
  }

  /** The baseline: one insert-if-absent of a random 64-character hex id. */
  void rawInsert() throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(database.rawInsert())) {
      ps.setString(1, randomHex(32));
      ps.executeUpdate();
    }
  }

  /**
   * The hand-written pair: the least two statements any claim-then-complete store must send on the
   * store's schema, without reading the row back, without the database's clock, each on its own
   * borrowed connection as the store does. What separates it from the raw insert is the cost of a
   * second statement and commit and of a wider row; what separates the store from it is the store's
   * own work.
   */
  void minimalPair() throws SQLException {
    String id = randomHex(32);
    String owner = randomHex(16);
    long now = System.currentTimeMillis();
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(database.pairInsert())) {
      ps.setString(1, id);
      ps.setString(2, SCOPE);
      ps.setString(3, id);
      ps.setString(4, owner);
      ps.setLong(5, now + LEASE.toMillis());
      ps.setLong(6, now + 2 * LEASE.toMillis());
      ps.setLong(7, now);
      if (ps.executeUpdate() != 1) {
        throw new IllegalStateException("a new key was not inserted: " + id);
      }
    }
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(BenchDatabase.PAIR_UPDATE)) {
      ps.setBytes(1, RECEIPT);
      ps.setLong(2, now + RETENTION.toMillis());
      ps.setLong(3, now);
      ps.setString(4, id);
      ps.setString(5, owner);
      if (ps.executeUpdate() != 1) {
        throw new IllegalStateException("a fresh row was not completed: " + id);
      }
    }
  }

  /** A claim of a key never seen before, then the completion of its lease. */
  void claimAndComplete() {
    claimAndComplete(store, newKey());
  }

  /**
   * {@link #claimAndComplete()} with the starter's cap of 10 000 live records on the scope, one
   * scope per thread (one caller each): the claim also counts the scope's other live rows.
   */
  void claimAndCompleteCapped() {
    IdempotencyKey key =
        IdempotencyKey.of(SCOPE + ":" + Thread.currentThread().getId(), randomHex(16));
    claimAndComplete(store, new ClaimRequest(key, Fingerprint.NONE, LEASE, false, 10_000));
  }

  private static void claimAndComplete(JdbcIdempotencyStore store, IdempotencyKey key) {
    claimAndComplete(store, ClaimRequest.of(key, Fingerprint.NONE, LEASE));
  }

  private static void claimAndComplete(JdbcIdempotencyStore store, ClaimRequest request) {
    IdempotencyKey key = request.key();
    ClaimResult result = now(store.claim(request));
    if (!(result instanceof ClaimResult.Claimed claimed)) {
      throw new IllegalStateException("a new key was not claimed: " + result);
    }
    if (!now(store.complete(claimed.lease(), Outcome.success(RECEIPT), RETENTION))) {
      throw new IllegalStateException("a fresh lease could not be completed: " + key);
    }
  }

  /** Whether the database offers {@link #claimAndCompleteReadCommitted}. */
  boolean hasReadCommittedClaims() {
    return database.dialect().hasReadCommittedClaims();
  }

  /** {@link #claimAndComplete} on a store whose claims run under READ COMMITTED. */
  void claimAndCompleteReadCommitted() {
    claimAndComplete(readCommittedStore, newKey());
  }

  /** A claim of a key completed during setup: the store answers with the stored outcome. */
  void replay() {
    IdempotencyKey key =
        completedKeys.get(ThreadLocalRandom.current().nextInt(completedKeys.size()));
    ClaimResult result = now(replayStore.claim(ClaimRequest.of(key, Fingerprint.NONE, LEASE)));
    if (!(result instanceof ClaimResult.Completed)) {
      throw new IllegalStateException("a completed key did not replay: " + result);
    }
  }

  private void truncate(String... tables) throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      for (String table : tables) {
        s.execute("TRUNCATE TABLE " + table);
      }
    }
  }

  private JdbcStoreConfig plainConfig(String table) {
    return JdbcStoreConfig.custom(database.dialect()).table(table).build();
  }

  /** A business transaction that inserts one order row, without Idempotency. */
  void businessTransaction() throws SQLException {
    transactions.inTransaction(StoreScenarios::insertOrder);
  }

  /** The same business transaction, its work run once per key by a join-mode store. */
  void businessTransactionWithIdempotency() throws SQLException {
    IdempotencyKey key = newKey();
    transactions.inTransaction(c -> joined.call(key, Fingerprint.NONE).run(ctx -> insertOrder(c)));
  }

  private static String insertOrder(Connection c) throws SQLException {
    String id = randomHex(32);
    try (PreparedStatement ps = c.prepareStatement(BenchDatabase.BUSINESS_INSERT)) {
      ps.setString(1, id);
      ps.setLong(2, ThreadLocalRandom.current().nextLong(1, 100_000));
      ps.executeUpdate();
    }
    return id;
  }

  // A client-chosen key as services see them: 32 random hex characters, the size of a UUID.
  private static IdempotencyKey newKey() {
    return IdempotencyKey.of(SCOPE, randomHex(16));
  }

  private static String randomHex(int bytes) {
    byte[] random = new byte[bytes];
    ThreadLocalRandom.current().nextBytes(random);
    return HEX.formatHex(random);
  }

  /** Stops the engine's lease watchdog. */
  @Override
  public void close() {
    joined.close();
  }
}
