package dev.idem.jdbc;

import dev.idem.jdbc.internal.SqlIdentifiers;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Where and how the JDBC store keeps its records. Immutable; {@link #custom(JdbcDialect)} builds
 * one, validated in {@code build()}.
 */
public final class JdbcStoreConfig {

  /** The default limit on a stored outcome: 1 MiB. */
  public static final int DEFAULT_MAX_OUTCOME_BYTES = 1024 * 1024;

  /**
   * The default bound on a store call other than a claim or a renewal on a pooled connection: 10 s.
   */
  public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(10);

  /** The default table name. */
  public static final String DEFAULT_TABLE = "idem_records";

  private final JdbcDialect dialect;
  private final String table;
  private final boolean sharedBetweenProcesses;
  private final @Nullable TransactionConnection transactions;
  private final int maxOutcomeBytes;
  private final boolean readCommittedClaims;
  private final Duration callTimeout;

  private JdbcStoreConfig(Builder b) {
    this.callTimeout = b.callTimeout;
    this.readCommittedClaims = b.readCommittedClaims;
    this.maxOutcomeBytes = b.maxOutcomeBytes;
    this.transactions = b.transactions;
    this.dialect = b.dialect;
    this.table = b.table;
    this.sharedBetweenProcesses = b.sharedBetweenProcesses;
  }

  /** The defaults for {@code dialect}: table {@value #DEFAULT_TABLE}, shared between processes. */
  public static JdbcStoreConfig of(JdbcDialect dialect) {
    return custom(dialect).build();
  }

  /** A builder for {@code dialect}. */
  public static Builder custom(JdbcDialect dialect) {
    return new Builder(dialect);
  }

  /** The database's dialect. */
  public JdbcDialect dialect() {
    return dialect;
  }

  /** The records table, possibly schema-qualified. */
  public String table() {
    return table;
  }

  /**
   * True when other processes can reach the same table (a server database, or an H2 file or
   * server); false for a private in-memory database.
   */
  public boolean sharedBetweenProcesses() {
    return sharedBetweenProcesses;
  }

  /** The largest outcome stored; a larger one is refused before anything is written. */
  public int maxOutcomeBytes() {
    return maxOutcomeBytes;
  }

  /**
   * True when claims outside a joined transaction run under READ COMMITTED; see {@link
   * Builder#readCommittedClaims}.
   */
  public boolean readCommittedClaims() {
    return readCommittedClaims;
  }

  /** The bound on a store call on a pooled connection; see {@link Builder#callTimeout}. */
  public Duration callTimeout() {
    return callTimeout;
  }

  /** Where the thread's transaction is found in join mode; null in plain mode. */
  public @Nullable TransactionConnection transactions() {
    return transactions;
  }

  /** Checks and builds a {@link JdbcStoreConfig}. */
  public static final class Builder {
    private final JdbcDialect dialect;
    private String table = DEFAULT_TABLE;
    private boolean sharedBetweenProcesses = true;
    private @Nullable TransactionConnection transactions;
    private int maxOutcomeBytes = DEFAULT_MAX_OUTCOME_BYTES;
    private boolean readCommittedClaims;
    private Duration callTimeout = DEFAULT_CALL_TIMEOUT;

    private Builder(JdbcDialect dialect) {
      this.dialect = Objects.requireNonNull(dialect, "dialect");
    }

    /** The records table: letters, digits and underscores, optionally {@code schema.table}. */
    public Builder table(String table) {
      this.table = table;
      return this;
    }

    /** Whether other processes share the table; true by default. */
    public Builder sharedBetweenProcesses(boolean shared) {
      this.sharedBetweenProcesses = shared;
      return this;
    }

    /** The largest outcome stored, in bytes; at least 0. */
    public Builder maxOutcomeBytes(int maxOutcomeBytes) {
      this.maxOutcomeBytes = maxOutcomeBytes;
      return this;
    }

    /**
     * Join mode: when {@code transactions} reports a transaction on the calling thread, claims and
     * outcomes are written in it, so they commit or roll back with the business writes, and a
     * concurrent duplicate waits on the primary key until the first commits, then replays. Its
     * DataSource must be the store's DataSource.
     */
    public Builder joinTransactions(TransactionConnection transactions) {
      this.transactions = Objects.requireNonNull(transactions, "transactions");
      return this;
    }

    /**
     * How long a store call on a pooled connection may wait for the database, whatever the driver's
     * or pool's socket timeout (often none: a stalled server or a silent partition would hold the
     * thread and the connection forever): the store bounds every read of the connection's socket
     * ({@code Connection.setNetworkTimeout}) for its call, and puts the connection's own bound back
     * after; 10 s by default. A call past it fails with {@code IdempotencyStoreException}, and the
     * pool drops the connection. A connection bounded tighter already keeps its bound. In join mode
     * the caller's transaction connection is the caller's, and is left as it is. (A claim answered
     * after half its lease is refused by the engine whatever this says.)
     *
     * @throws IllegalArgumentException when not above zero
     */
    public Builder callTimeout(Duration callTimeout) {
      Objects.requireNonNull(callTimeout, "callTimeout");
      if (callTimeout.isZero() || callTimeout.isNegative()) {
        throw new IllegalArgumentException("callTimeout must be above zero, was " + callTimeout);
      }
      this.callTimeout = callTimeout;
      return this;
    }

    /**
     * MySQL and MariaDB only; off by default. When on, the store sends {@code SET TRANSACTION
     * ISOLATION LEVEL READ COMMITTED} before each claim it runs on a connection of its own (never
     * inside the caller's transaction in join mode, whose isolation is the caller's), so that the
     * claim's upsert runs under READ COMMITTED instead of InnoDB's default REPEATABLE READ and
     * takes no gap locks that hold up the inserts of other keys. The setting lapses after that one
     * transaction, so nothing changes on the pooled connection. It costs one short round trip per
     * claim, and it needs row-based or mixed binary logging: with {@code binlog_format=STATEMENT}
     * the server refuses InnoDB writes under READ COMMITTED and every claim would fail. A store
     * with a pool of its own can instead set READ COMMITTED on that pool (HikariCP {@code
     * transactionIsolation}), which costs nothing per claim. See {@code docs/jdbc.md}.
     */
    public Builder readCommittedClaims(boolean readCommittedClaims) {
      this.readCommittedClaims = readCommittedClaims;
      return this;
    }

    /**
     * @throws IllegalArgumentException when the table name is not a plain SQL identifier, or {@link
     *     #readCommittedClaims} is on for a dialect without it
     */
    public JdbcStoreConfig build() {
      SqlIdentifiers.table(table);
      if (maxOutcomeBytes < 0) {
        throw new IllegalArgumentException(
            "maxOutcomeBytes must not be negative, was " + maxOutcomeBytes);
      }
      if (readCommittedClaims && !dialect.hasReadCommittedClaims()) {
        throw new IllegalArgumentException(
            "readCommittedClaims is for MySQL and MariaDB; "
                + dialect.name()
                + " claims already run without gap locks");
      }
      return new JdbcStoreConfig(this);
    }
  }
}
