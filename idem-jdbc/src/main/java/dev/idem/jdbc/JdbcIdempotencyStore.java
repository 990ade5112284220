package dev.idem.jdbc;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.OutcomeTooLargeException;
import dev.idem.core.StoreFullException;
import dev.idem.core.store.BlockingIdempotencyStore;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.IdempotencyRecord;
import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordState;
import dev.idem.core.store.StoreCapability;
import dev.idem.jdbc.internal.Jdbc;
import dev.idem.jdbc.internal.Params;
import dev.idem.jdbc.internal.RecordBatches;
import dev.idem.jdbc.internal.RecordRow;
import dev.idem.jdbc.internal.Statements;
import dev.idem.jdbc.internal.StoreSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * Records in a database table: the article's unique-index strategy. The primary key on the key's
 * digest is what makes a claim atomic; each claim is one conditional upsert (PostgreSQL {@code
 * INSERT ... ON CONFLICT ... RETURNING}, MariaDB/MySQL {@code INSERT ... ON DUPLICATE KEY UPDATE},
 * H2 {@code MERGE}), never a check followed by an insert, and never raises a duplicate-key error
 * that would abort a PostgreSQL transaction. Time is the database's clock, in milliseconds.
 *
 * <p><b>Join mode</b> ({@link JdbcStoreConfig.Builder#joinTransactions}): inside a transaction the
 * claim, and then the outcome, are written in that transaction. Business writes and record commit
 * or roll back together, which is the only way to get exactly-once effects for local database work.
 * A duplicate never waits on the first transaction's row: it is answered in progress at once (on
 * PostgreSQL a transaction-scoped advisory lock on the key tells; elsewhere the claim gives up on a
 * locked row at once), and the engine's policy refuses it (409) or has it ask again until the first
 * ends, then replay (or claim, if it rolled back). A terminal failure stored in a transaction that
 * then rolls back is gone with it, so its retry runs again. Outside a transaction the store works
 * as in plain mode.
 *
 * <p>Under REPEATABLE READ the caller's snapshot may be older than the first transaction's commit.
 * On MySQL and MariaDB the claim still replays: the upsert sees the latest committed row, and so
 * does its read-back (a locking read, {@code SELECT ... FOR UPDATE}). PostgreSQL refuses such an
 * upsert with a serialization failure and aborts the transaction; that, and a deadlock (which rolls
 * back the whole transaction), end the claim with an {@link IdempotencyStoreException} whose cause
 * carries SQLState 40001, never with a second attempt: roll back and run it again.
 *
 * <p>Every call on a pooled connection is bounded ({@link JdbcStoreConfig.Builder#callTimeout}).
 * Keys, fingerprints and outcomes are bound as parameters; the table name is validated by {@link
 * JdbcStoreConfig}. Create the table with {@link JdbcSchema} or this jar's {@code schema-*.sql}.
 *
 * <p>Over 400 lines because it is where every store call meets its connection (joined, or its own
 * for a step) and its dialect's answers to failures; the statements, rows, batches and dialects are
 * classes of their own.
 */
public final class JdbcIdempotencyStore extends BlockingIdempotencyStore {

  private static final int PURGE_ATTEMPTS = 3;

  private static final int CLAIM_ATTEMPTS = 8;

  // Marks the owner of a claim written in the caller's transaction. Until that transaction ends
  // its row is locked and invisible to others, so the lease needs no renewal from another thread
  // (the watchdog's own connection would only block on that lock); by the time the transaction
  // ends the outcome is written in it. A renewal asked for inside a transaction is carried out.
  private static final String JOINED = "tx:";

  private final Jdbc jdbc;
  // a step's record is never written in the caller's transaction: it must outlive a rollback
  private final Jdbc alone;
  private final JdbcDialect dialect;
  private final StoreSql sql;
  private final Set<StoreCapability> capabilities;
  private final int maxOutcomeBytes;
  private final @Nullable String readCommitted;
  private final RecordBatches batches;

  /** A store on {@code dataSource} with {@code config}'s table, dialect and capabilities. */
  public JdbcIdempotencyStore(DataSource dataSource, JdbcStoreConfig config) {
    this.jdbc = new Jdbc(dataSource, config.transactions(), config.callTimeout());
    this.alone = new Jdbc(dataSource, null, config.callTimeout());
    this.dialect = config.dialect();
    this.sql = StoreSql.of(dialect.sql(), config.table());
    this.maxOutcomeBytes = config.maxOutcomeBytes();
    this.readCommitted =
        config.readCommittedClaims() ? dialect.sql().readCommittedNextTransaction() : null;
    this.batches = new RecordBatches(dialect.sql(), config.table(), sql, jdbc, readCommitted);
    EnumSet<StoreCapability> can = EnumSet.noneOf(StoreCapability.class);
    if (config.sharedBetweenProcesses()) {
      can.add(StoreCapability.SHARED_BETWEEN_PROCESSES);
    }
    if (config.transactions() != null) {
      can.add(StoreCapability.JOINS_TRANSACTIONS);
    }
    this.capabilities = Set.copyOf(can);
  }

  /**
   * True when the calling thread has a transaction that this store writes its records in (join
   * mode), so that they commit or roll back with the caller's own writes.
   */
  @Override
  public boolean joinsCurrentTransaction() {
    return jdbc.joined();
  }

  private Jdbc jdbc(IdempotencyKey key) {
    return key.isStep() ? alone : jdbc;
  }

  @Override
  protected ClaimResult claimNow(ClaimRequest request) {
    Jdbc db = jdbc(request.key());
    return db.run(
        "claim",
        c -> {
          boolean joined = db.joined();
          if (readCommitted != null && !joined) {
            // Only before the first attempt: without auto-commit a transaction is running after
            // it, and the few later attempts may as well run under the session's own level.
            try (Statement s = c.createStatement()) {
              s.execute(readCommitted);
            }
          }
          try {
            if (joined && !dialect.sql().joinedClaimMayGo(c, request.key().digest())) {
              return RecordRow.busy(read(c, sql.select(), request.key()), request);
            }
            for (int attempt = 1; attempt <= CLAIM_ATTEMPTS; attempt++) {
              String owner = (joined ? JOINED : "") + newOwner();
              ClaimResult result =
                  joined
                      ? tryJoinedClaim(c, request, owner, attempt)
                      : tryClaim(c, request, owner, false, attempt);
              if (result != null) {
                return withinCap(c, request, result);
              }
            }
          } catch (SQLException e) {
            if (joined && dialect.isTransient(e)) {
              throw Jdbc.abortedTransaction(request.key(), e);
            }
            throw e;
          }
          throw new IdempotencyStoreException(
              "claim of " + request.key() + " kept racing with other claims; try again");
        });
  }

  /** Outside join mode, sent together where the database allows ({@link RecordBatches}). */
  @Override
  public List<CompletableFuture<ClaimResult>> claimAll(List<ClaimRequest> requests) {
    return jdbc.joined()
        ? super.claimAll(requests)
        : batches.claimAll(requests, JdbcIdempotencyStore::newOwner, this::claim);
  }

  // A joined claim that gives up at once on a row another transaction holds: the engine's policy
  // refuses or asks again, never a wait on that lock holding a pooled connection.
  private @Nullable ClaimResult tryJoinedClaim(
      Connection c, ClaimRequest request, String owner, int attempt) throws SQLException {
    Statements.LockWait wait = dialect.sql().boundLockWait(c);
    try {
      return tryClaim(c, request, owner, true, attempt);
    } catch (SQLException e) {
      if (!dialect.sql().isLockWaitTimeout(e)) {
        throw e;
      }
      if (dialect.sql().lockWaitTimeoutAbortsTransaction(c)) {
        throw Jdbc.abortedTransaction(request.key(), e);
      }
      return RecordRow.busy(read(c, sql.select(), request.key()), request);
    } finally {
      wait.restore();
    }
  }

  // The first attempt only inserts where the dialect can say so (claimNew): a key that is there is
  // read, and taken by the upsert of the next attempt only when the rules let it be claimed.
  private @Nullable ClaimResult tryClaim(
      Connection c, ClaimRequest request, String owner, boolean joined, int attempt)
      throws SQLException {
    String id = request.key().digest();
    long leaseMs = Math.max(1, request.lease().toMillis());
    if (request.requireIssued()) {
      // an unchecked fingerprint matches any, chosen here: a typed literal for "empty" is not
      // portable (MySQL has no CAST to VARCHAR)
      String fingerprint = request.fingerprint().value();
      int unchecked = fingerprint.isEmpty() ? 1 : 0;
      Params.update(
          c, sql.claimToken(), fingerprint, owner, leaseMs, leaseMs, id, fingerprint, unchecked);
    } else {
      String claimNew = sql.claimNew();
      String claim = attempt == 1 && claimNew != null ? claimNew : sql.claim();
      try (PreparedStatement ps = c.prepareStatement(claim)) {
        bindClaim(ps, request, id, owner, leaseMs);
        if (sql.claimReturnsRow()) {
          if (dialect.sql().claimTakesIdTwice()) {
            ps.setString(8, id);
          }
          try (ResultSet rs = ps.executeQuery()) {
            if (rs.next()) {
              return RecordRow.classify(RecordRow.read(rs, request.key()), request, owner);
            }
          }
        } else {
          ps.executeUpdate();
        }
      } catch (SQLException e) {
        // A deadlock rolls back the whole transaction: in the caller's, a second attempt would
        // carry on in a new one, without the caller's earlier writes.
        if (!sql.claimReturnsRow()
            && (dialect.isDuplicateKey(e) || (dialect.isTransient(e) && !joined))) {
          return null;
        }
        throw e;
      }
    }
    return RecordRow.classify(read(c, sql.readBack(), request.key()), request, owner);
  }

  // A claim that made a record live gives it up again when its scope already held the cap of
  // others; concurrent claims may pass the cap by their number, which is all a cap needs.
  private ClaimResult withinCap(Connection c, ClaimRequest request, ClaimResult result)
      throws SQLException {
    if (!request.capped()
        || request.requireIssued()
        || !(result instanceof ClaimResult.Claimed claimed)
        || othersLive(c, request.key(), request.scopeCap()) < request.scopeCap()) {
      return result;
    }
    Lease lease = claimed.lease();
    Object[] owned = {lease.key().digest(), lease.fence(), lease.owner()};
    if (Params.update(c, sql.releaseToIssued(), owned) != 1) {
      Params.update(c, sql.deleteOwned(), owned);
    }
    throw StoreFullException.scopeCap(request.scopeCap(), request.key().scope());
  }

  private long othersLive(Connection c, IdempotencyKey key, int cap) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql.countScope())) {
      Params.bind(ps, dialect.sql().countScopeParams(key.scope(), key.digest(), cap));
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static void bindClaim(
      PreparedStatement ps, ClaimRequest request, String id, String owner, long leaseMs)
      throws SQLException {
    IdempotencyKey key = request.key();
    Params.bind(
        ps, id, key.scope(), key.value(), request.fingerprint().value(), owner, leaseMs, leaseMs);
  }

  @Override
  protected boolean completeNow(Lease lease, Outcome outcome, Duration retention) {
    // the mark of an unstored result is small and must always fit, or the key could not be kept
    if (outcome.payload().length > maxOutcomeBytes && outcome.kind() != Outcome.Kind.UNSTORED) {
      throw new OutcomeTooLargeException(outcome.payload().length, maxOutcomeBytes);
    }
    return jdbc(lease.key())
        .run(
            "complete",
            c ->
                Params.update(
                        c,
                        sql.complete(),
                        outcome.kind().name(),
                        outcome.payload(),
                        Math.max(1, retention.toMillis()),
                        lease.key().digest(),
                        lease.fence(),
                        lease.owner())
                    == 1);
  }

  /** Outside join mode, one batch of statements ({@link RecordBatches}). */
  @Override
  public List<CompletableFuture<Boolean>> completeAll(List<Completion> completions) {
    return jdbc.joined()
        ? super.completeAll(completions)
        : batches.completeAll(
            completions, maxOutcomeBytes, c -> complete(c.lease(), c.outcome(), c.retention()));
  }

  @Override
  protected boolean releaseNow(Lease lease) {
    Object[] owned = {lease.key().digest(), lease.fence(), lease.owner()};
    return jdbc(lease.key())
        .run(
            "release",
            c ->
                Params.update(c, sql.releaseToIssued(), owned) == 1
                    || Params.update(c, sql.deleteOwned(), owned) == 1);
  }

  @Override
  public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
    if (lease.owner().startsWith(JOINED) && !jdbc.joined()) {
      return Optional.of(lease);
    }
    long ms = Math.max(1, leaseDuration.toMillis());
    Object[] owned = {lease.key().digest(), lease.fence(), lease.owner()};
    return jdbc(lease.key())
        .run(
            "renew",
            c -> {
              if (Params.update(c, sql.renew(), ms, ms, owned[0], owned[1], owned[2]) != 1) {
                return Optional.empty();
              }
              try (PreparedStatement ps = c.prepareStatement(sql.selectLeaseUntil())) {
                Params.bind(ps, owned);
                try (ResultSet rs = ps.executeQuery()) {
                  return rs.next()
                      ? Optional.of(lease.withUntil(Instant.ofEpochMilli(rs.getLong(1))))
                      : Optional.<Lease>empty();
                }
              }
            });
  }

  @Override
  public Optional<IdempotencyRecord> find(IdempotencyKey key) {
    return jdbc.run(
        "find",
        c -> {
          RecordRow row = read(c, sql.select(), key);
          return row != null && row.isLive() ? Optional.of(row.record()) : Optional.empty();
        });
  }

  @Override
  public boolean evict(IdempotencyKey key, RecordState state, long fence) {
    Object[] matching = {key.digest(), state.name(), fence};
    boolean answer = state != RecordState.IN_PROGRESS && !key.isStep();
    return jdbc.run(
        "evict",
        c -> {
          if (!answer) {
            return (state == RecordState.IN_PROGRESS
                    && Params.update(c, sql.evictToIssued(), matching) == 1)
                || Params.update(c, sql.evict(), matching) == 1;
          }
          // one transaction: a claim of the key waits on the deleted row until the steps are gone
          // with it, so no new run's step is taken for an old one
          return Jdbc.inOneTransaction(
              c,
              () ->
                  Params.update(c, sql.evict(), matching) == 1
                      && Params.update(
                              c,
                              sql.evictSteps(),
                              dialect.sql().stepsOfParams(key.scope(), key.value(), key.digest()))
                          >= 0);
        });
  }

  @Override
  public boolean issue(IdempotencyKey key, Duration ttl, int scopeCap) {
    long ms = Math.max(1, ttl.toMillis());
    String id = key.digest();
    return jdbc.run(
        "issue",
        c -> {
          Params.update(c, sql.deleteExpired(), id);
          if (scopeCap != ClaimRequest.NO_CAP && othersLive(c, key, scopeCap) >= scopeCap) {
            throw StoreFullException.scopeCap(scopeCap, key.scope());
          }
          try {
            return Params.update(c, sql.issue(), id, key.scope(), key.value(), ms, ms) == 1;
          } catch (SQLException e) {
            if (dialect.isDuplicateKey(e)) {
              return false;
            }
            throw e;
          }
        });
  }

  /**
   * Writes {@code key} as completed with {@code outcome} where no row is, in one statement; only
   * inside a transaction this store joins, which shows the row together with the caller's writes or
   * not at all. A copy of the key in another transaction waits on the row until this one ends.
   *
   * @return false when a row for the key is there (live, expired or in progress), or when the
   *     database chose this insert as a deadlock's victim (and rolled its transaction back): the
   *     caller reads the row, or leaves it to the engine's claim
   */
  boolean insertCompleted(IdempotencyKey key, Outcome outcome, Duration retention) {
    if (!jdbc.joined()) {
      throw new IllegalStateException("a completed record is written only in a joined transaction");
    }
    long ms = Math.max(1, retention.toMillis());
    return jdbc.run(
        "insert completed",
        c -> {
          try {
            return Params.update(
                    c,
                    sql.insertCompleted(),
                    key.digest(),
                    key.scope(),
                    key.value(),
                    ms,
                    outcome.kind().name(),
                    outcome.payload())
                == 1;
          } catch (SQLException e) {
            // MySQL and MariaDB: copies that waited on a row whose transaction rolled back may
            // deadlock inserting it; the one rolled back treats the row as met, and reads it
            if (dialect.isDuplicateKey(e) || dialect.isTransient(e)) {
              return false;
            }
            throw e;
          }
        });
  }

  @Override
  public int purgeExpired(int limit) {
    for (int attempt = 1; ; attempt++) {
      try {
        return jdbc.run("purge", c -> Params.update(c, sql.purge(), limit));
      } catch (IdempotencyStoreException e) {
        // nodes purging at once may deadlock on the rows they both chose (InnoDB's next-key
        // locks); the loser's batch is rolled back whole, so it chooses again
        if (attempt >= PURGE_ATTEMPTS || !deadlocked(e)) {
          throw e;
        }
      }
    }
  }

  private static boolean deadlocked(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SQLException e
          && ("40001".equals(e.getSQLState()) || "40P01".equals(e.getSQLState()))) {
        return true;
      }
    }
    return false;
  }

  @Override
  public Set<StoreCapability> capabilities() {
    return capabilities;
  }

  private static @Nullable RecordRow read(Connection c, String select, IdempotencyKey key)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(select)) {
      ps.setString(1, key.digest());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? RecordRow.read(rs, key) : null;
      }
    }
  }

  // Owners tell claims apart and are never shown to clients; they need not be unguessable.
  private static String newOwner() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    return new UUID(random.nextLong(), random.nextLong()).toString();
  }
}
