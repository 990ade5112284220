package dev.idem.jdbc;

import dev.idem.jdbc.internal.Dialects;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * What differs between databases, as one small strategy object per database: the clock expression,
 * the one-statement claim and lock acquisition, and how errors are told apart. Everything else Idem
 * runs is portable SQL built from these pieces.
 */
public interface JdbcDialect {

  /** A short name: {@code postgresql}, {@code mariadb}, {@code mysql} or {@code h2}. */
  String name();

  /**
   * An SQL expression for the database's current time in milliseconds since the epoch, constant
   * within one statement (so that every comparison in a statement sees the same instant), not
   * frozen at the start of a transaction, and independent of the session's time zone (never
   * converted through local time, which repeats an hour when summer time ends).
   */
  String now();

  /**
   * An SQL expression for the database's current time in microseconds since the epoch, the floor of
   * every fence handed out: a claim takes the greater of the row's fence + 1 and this, so a key's
   * fences only grow, even after its row was released, expired or purged (as long as the database's
   * clock does not step back).
   */
  String fenceFloor();

  /**
   * The claim of an absent, expired or claimable key as one atomic statement (an upsert that only
   * updates a row the rules allow to be claimed). Parameters: id, scope, value, fingerprint, owner,
   * lease ms, lease ms.
   */
  String claim(String table);

  /**
   * True when {@link #claim} is a query returning the row, with the statement's clock as {@code
   * now_ms}: the row it claimed, or the row that stopped the claim (PostgreSQL: as it stood when
   * the statement began, and nothing when that row was committed later); false when it is an update
   * whose result is read back. When the query returns no row, the row is read back.
   */
  boolean claimReturnsRow();

  /**
   * True when {@link #claim} takes the id once more, as an eighth parameter after the seven listed
   * there.
   */
  default boolean claimTakesIdTwice() {
    return false;
  }

  /**
   * An insert that does nothing when a row with the same id exists (update count 0). A dialect
   * without such a statement may return a plain insert: its duplicate-key error is taken as 0.
   *
   * @param columns the parenthesised column list
   * @param values the parenthesised values, with parameters
   */
  String insertIfAbsent(String table, String columns, String values);

  /**
   * An insert that does nothing when it would violate any unique key of the table (update count 0)
   * and leaves the transaction usable, or null when the database has no such statement (H2).
   *
   * @param columns the parenthesised column list
   * @param values the parenthesised values, with parameters
   */
  default String insertIgnoringDuplicates(String table, String columns, String values) {
    return null;
  }

  /** Deletes at most {@code ?} expired rows in one statement that holds no long locks. */
  String purge(String table);

  /**
   * Appended to the read that follows a claim, so that it sees the latest committed row even in a
   * transaction whose snapshot is older (MySQL's REPEATABLE READ); empty where plain reads do.
   */
  default String lockingRead() {
    return "";
  }

  /**
   * A statement that makes the session's next transaction (in auto-commit mode, its next statement)
   * run under READ COMMITTED and then lapses by itself, or null where the dialect's claims have no
   * reason for it. MySQL and MariaDB: {@code SET TRANSACTION ISOLATION LEVEL READ COMMITTED}; see
   * {@link JdbcStoreConfig.Builder#readCommittedClaims}.
   */
  default String readCommittedNextTransaction() {
    return null;
  }

  /** The schema resource in this jar, with {@code idem_records} as the table name. */
  String schemaResource();

  /**
   * The acquisition of a lock as one atomic statement (an upsert that inserts the lock's row, or
   * takes over a row that was released or whose lease has ended, with a fresh owner and {@code
   * fence + 1}, and leaves a row held by someone else alone). Parameters: name, owner, lease ms,
   * lease ms plus fence retention ms.
   */
  String acquireLock(String table);

  /**
   * True when {@link #acquireLock} is a query that returns {@code fence, lease_until} of the row it
   * took (and no row otherwise); false when it is an update whose result is read back.
   */
  boolean acquireLockReturnsRow();

  /** Deletes at most {@code ?} lock rows whose {@code expires_at} has passed, in one statement. */
  String purgeLocks(String table);

  /** The lock table's schema resource in this jar, with {@code idem_locks} as the table name. */
  String lockSchemaResource();

  /** True when {@code e} says a unique key was violated. */
  default boolean isDuplicateKey(SQLException e) {
    String state = e.getSQLState();
    return state != null && (state.equals("23505") || state.equals("23000"));
  }

  /** True when {@code e} is a deadlock or serialization failure that a retry resolves. */
  default boolean isTransient(SQLException e) {
    String state = e.getSQLState();
    return state != null && (state.equals("40001") || state.equals("40P01"));
  }

  /** PostgreSQL 9.5 and later. */
  static JdbcDialect postgresql() {
    return Dialects.POSTGRESQL;
  }

  /** MySQL 8 (and MariaDB, which speaks its syntax): the claim is read back after the upsert. */
  static JdbcDialect mysql() {
    return Dialects.MYSQL;
  }

  /** MariaDB 10.5 and later: as {@link #mysql()}, with the claim's row returned by the upsert. */
  static JdbcDialect mariadb() {
    return Dialects.MARIADB;
  }

  /** H2 2.x. */
  static JdbcDialect h2() {
    return Dialects.H2;
  }

  /**
   * Picks the dialect from the database's product name.
   *
   * @throws IllegalArgumentException for a database Idem has no dialect for
   */
  static JdbcDialect detect(DataSource dataSource) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      String product = c.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
      if (product.contains("postgres")) {
        return postgresql();
      }
      if (product.contains("mariadb")) {
        return mariadb();
      }
      if (product.contains("mysql")) {
        return mysql();
      }
      if (product.contains("h2")) {
        return h2();
      }
      throw new IllegalArgumentException("no Idem dialect for database '" + product + "'");
    }
  }
}
