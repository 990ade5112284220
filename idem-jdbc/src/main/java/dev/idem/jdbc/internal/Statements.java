package dev.idem.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;
import org.jspecify.annotations.Nullable;

/**
 * The SQL of one database: one subclass per database holds every statement of Idem's that differs
 * there (its clock, the one-statement claim and lock acquisition, inserts that skip duplicates,
 * bounded purges), and how its errors are told apart. {@link StoreSql}, {@link LockSql} and {@link
 * HotAccountSql} build the portable rest from these pieces; the tables come from the one migration
 * file per database under {@link #migrations()}.
 */
public abstract class Statements {

  /** Every column of the records table, in the order the claim statements insert them. */
  static final String RECORD_COLUMNS =
      "(id, scope, key_value, state, fingerprint, fence, owner, lease_until, expires_at, token,"
          + " token_expires_at, outcome_kind, outcome, updated_at)";

  /** Every column of the locks table, in the order the acquisitions insert them. */
  static final String LOCK_COLUMNS = "(name, owner, fence, lease_until, expires_at)";

  private final String name;
  private final String folder;

  Statements(String name, String folder) {
    this.name = name;
    this.folder = folder;
  }

  /** A short name: {@code postgresql}, {@code mariadb}, {@code mysql} or {@code h2}. */
  public final String name() {
    return name;
  }

  /** The class path folder of this database's migration files (Flyway's naming). */
  public final String migrations() {
    return "dev/idem/jdbc/flyway/" + folder;
  }

  /**
   * The database's current time in milliseconds since the epoch, constant within one statement
   * (every comparison in a statement sees the same instant), not frozen at the start of a
   * transaction, and never converted through the session's local time (which repeats an hour when
   * summer time ends).
   */
  public abstract String now();

  /**
   * The database's current time in microseconds since the epoch, the floor of every fence handed
   * out: a claim takes the greater of the row's fence + 1 and this, so a key's fences only grow,
   * even after its row was released, expired or purged (while the clock does not step back).
   */
  public abstract String fenceFloor();

  /**
   * The values of a row a claim inserts, in {@link #RECORD_COLUMNS}' order: in progress, its fence
   * and times from the database's clock. Parameters: id, scope, value, fingerprint, owner, lease
   * ms, lease ms.
   */
  final String claimedRow() {
    return "(?, ?, ?, 'IN_PROGRESS', ?, "
        + fenceFloor()
        + ", ?, "
        + now()
        + " + ?, "
        + now()
        + " + 2 * ?, FALSE, NULL, NULL, NULL, "
        + now()
        + ")";
  }

  /**
   * The claim of an absent, expired or claimable key as one atomic statement (an upsert that only
   * updates a row the rules allow to be claimed). Parameters: id, scope, value, fingerprint, owner,
   * lease ms, lease ms, and the id once more where {@link #claimTakesIdTwice()}.
   */
  public abstract String claim(String table);

  /**
   * A first claim attempt that inserts an absent key and otherwise only reads the row, with the
   * parameters of {@link #claim}; {@code null} where the dialect has none. It writes nothing to a
   * row that is there, so a replay commits no write and does not lock the row exclusively: an
   * upsert that finds a row it may not take still locks it until its transaction ends. A row that
   * is there is either returned, as {@link #claim} returns it (PostgreSQL: no lock at all, waiting
   * only for a transaction that changed the row and has not ended), or skipped, after which the
   * store reads the row back (MySQL, MariaDB: {@code INSERT IGNORE}, a shared lock for the
   * statement, as a reader takes). A row it finds claimable (expired, issued, or with its lease
   * ended) is taken by {@link #claim} in the next attempt.
   */
  public @Nullable String claimNew(String table) {
    return null;
  }

  /**
   * True when {@link #claim} is a query returning the row, with the statement's clock as {@code
   * now_ms}: the row it claimed, or the row that stopped the claim (PostgreSQL: as it stood when
   * the statement began, and nothing when that row was committed later); false when it is an update
   * whose result is read back. When the query returns no row, the row is read back.
   */
  public boolean claimReturnsRow() {
    return false;
  }

  /** True when {@link #claim} binds the id once more, as an eighth parameter. */
  public boolean claimTakesIdTwice() {
    return false;
  }

  /**
   * An insert that does nothing when a row with the same id exists (update count 0), or a plain
   * insert whose duplicate-key error the caller takes as 0.
   */
  public abstract String insertIfAbsent(String table, String columns, String values);

  /**
   * An insert that does nothing when it would violate any unique key of the table (update count 0)
   * and leaves the transaction usable, or null when the database has none (H2).
   */
  public @Nullable String insertIgnoringDuplicates(String table, String columns, String values) {
    return null;
  }

  /** Deletes at most {@code ?} expired records in one statement that holds no long locks. */
  public abstract String purge(String table);

  /** The clause that keeps the first rows of an ordered query, their number a parameter. */
  public String firstRows() {
    return " LIMIT ?";
  }

  /**
   * Appended to the read that follows a claim, so that it sees the latest committed row even in a
   * transaction whose snapshot is older (MySQL's REPEATABLE READ); empty where plain reads do.
   */
  public String lockingRead() {
    return "";
  }

  /**
   * Makes the session's next transaction (in auto-commit mode, its next statement) run under READ
   * COMMITTED and then lapses by itself, or null where claims have no reason for it.
   */
  public @Nullable String readCommittedNextTransaction() {
    return null;
  }

  /**
   * The acquisition of a lock as one atomic statement: inserts the lock's row, or takes over a row
   * that was released or whose lease has ended, with a fresh owner and the greater of {@code fence
   * + 1} and {@link #fenceFloor()}, and leaves a row held by someone else alone. Parameters: name,
   * owner, lease ms, lease ms plus fence retention ms, and the name once more where {@link
   * #acquireLockTakesNameTwice()}.
   */
  public abstract String acquireLock(String table);

  /** True when {@link #acquireLock} binds the name once more, as a fifth parameter. */
  public boolean acquireLockTakesNameTwice() {
    return false;
  }

  /** True when {@link #acquireLock} returns {@code fence, lease_until} of a lock it took. */
  public boolean acquireLockReturnsRow() {
    return false;
  }

  /** Deletes at most {@code ?} lock rows whose {@code expires_at} has passed, in one statement. */
  public abstract String purgeLocks(String table);

  /**
   * Join mode: whether the caller's transaction on {@code c} may claim the key with {@code digest}
   * now without waiting for another transaction's claim of it; if so, other joined claims of the
   * key wait for no lock of this one but are told it is busy until this transaction ends. True
   * where the claim's own lock wait is bounded instead ({@link #boundLockWait}).
   */
  public boolean joinedClaimMayGo(Connection c, String digest) throws SQLException {
    return true;
  }

  /**
   * Join mode: makes the statements on {@code c} give up at once on a row another transaction has
   * locked (they fail as {@link #isLockWaitTimeout} says, and the caller's transaction goes on)
   * until the returned step puts the session's setting back.
   */
  public LockWait boundLockWait(Connection c) throws SQLException {
    return LockWait.UNCHANGED;
  }

  /** True when {@code e} says a statement gave up waiting for a row lock. */
  public boolean isLockWaitTimeout(SQLException e) {
    return false;
  }

  /**
   * Whether a lock wait that timed out on {@code c} took the whole transaction with it, not only
   * its statement: then the joined claim cannot be answered "in progress" and go on.
   */
  public boolean lockWaitTimeoutAbortsTransaction(Connection c) throws SQLException {
    return false;
  }

  /** Puts back a session's lock wait that {@link #boundLockWait} changed. */
  @FunctionalInterface
  public interface LockWait {

    /** A lock wait left as it was. */
    LockWait UNCHANGED = () -> {};

    void restore() throws SQLException;
  }

  /**
   * The condition that a row's scope is the one bound, byte for byte, and how many times the scope
   * is bound for it: a column compared under a collation that ignores case, accents or trailing
   * spaces would make one caller's records count against another's cap.
   */
  public String sameScope() {
    return "scope = ?";
  }

  /**
   * The condition that a row is a step of the key of {@code scope} and {@code value}: its scope and
   * value, byte for byte (as {@link #sameScope()}: under a collation that ignores case another
   * caller's key would match), and another id.
   */
  public String stepsOf() {
    return "scope = ? AND key_value = ? AND id <> ?";
  }

  /** The parameters of {@link #stepsOf()}. */
  public Object[] stepsOfParams(String scope, String value, String id) {
    return new Object[] {scope, value, id};
  }

  /** The parameters of a count of the live records of {@code scope} besides {@code id}'s. */
  public Object[] countScopeParams(String scope, String id, int cap) {
    return new Object[] {scope, id, cap};
  }

  /** True when {@code e} says a unique key was violated. */
  public boolean isDuplicateKey(SQLException e) {
    String state = e.getSQLState();
    return state != null && (state.equals("23505") || state.equals("23000"));
  }

  /** True when {@code e} is a deadlock or serialization failure that a retry resolves. */
  public boolean isTransient(SQLException e) {
    String state = e.getSQLState();
    return state != null && (state.equals("40001") || state.equals("40P01"));
  }

  /** The columns a claim returns, as {@link RecordRow#read} reads them, with the clock. */
  static String rowColumns(String now) {
    return "scope, key_value, state, fingerprint, fence, owner, lease_until, expires_at, token,"
        + " outcome_kind, outcome, "
        + now
        + " AS now_ms";
  }

  // The condition under which an existing record may be claimed: expired, issued, or in progress
  // with its lease ended and claimed again with its fingerprint (or one side unchecked, empty);
  // r is the stored row's alias (with its dot), now the statement's clock and fingerprint the
  // claim's.
  static String claimable(String r, String now, String fingerprint) {
    return r
        + "expires_at <= "
        + now
        + " OR "
        + r
        + "state = 'ISSUED' OR ("
        + r
        + "state = 'IN_PROGRESS' AND "
        + r
        + "lease_until <= "
        + now
        + " AND ("
        + r
        + "fingerprint = "
        + fingerprint
        + " OR "
        + r
        + "fingerprint = '' OR "
        + fingerprint
        + " = ''))";
  }

  // A lock row that may be taken: released, or its lease ended.
  static String free(String row, String now) {
    return row + "owner IS NULL OR " + row + "lease_until <= " + now;
  }

  @Override
  public String toString() {
    return "JdbcDialect[" + name + "]";
  }
}
