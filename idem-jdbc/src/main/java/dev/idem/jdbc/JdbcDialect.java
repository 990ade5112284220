package dev.idem.jdbc;

import dev.idem.jdbc.internal.H2Statements;
import dev.idem.jdbc.internal.MySqlStatements;
import dev.idem.jdbc.internal.PostgresStatements;
import dev.idem.jdbc.internal.Statements;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * The database Idem's JDBC classes speak to: PostgreSQL, MySQL, MariaDB or H2. Each one stands for
 * one object holding all of that database's SQL, and one migration file per database creates its
 * tables ({@link #migrations()}). Immutable and shared; compare them with {@link #name()}.
 */
public final class JdbcDialect {

  private static final JdbcDialect POSTGRESQL = new JdbcDialect(new PostgresStatements());
  private static final JdbcDialect MYSQL = new JdbcDialect(new MySqlStatements(false));
  private static final JdbcDialect MARIADB = new JdbcDialect(new MySqlStatements(true));
  private static final JdbcDialect H2 = new JdbcDialect(new H2Statements());

  private final Statements sql;

  private JdbcDialect(Statements sql) {
    this.sql = sql;
  }

  /** PostgreSQL 9.5 and later. */
  public static JdbcDialect postgresql() {
    return POSTGRESQL;
  }

  /** MySQL 8 (and MariaDB, which speaks its syntax): the claim is read back after the upsert. */
  public static JdbcDialect mysql() {
    return MYSQL;
  }

  /** MariaDB 10.5 and later: as {@link #mysql()}, with the claim's row returned by the upsert. */
  public static JdbcDialect mariadb() {
    return MARIADB;
  }

  /** H2 2.x. */
  public static JdbcDialect h2() {
    return H2;
  }

  /**
   * Picks the dialect from the database's product name.
   *
   * @throws IllegalArgumentException for a database Idem has no dialect for
   */
  public static JdbcDialect detect(DataSource dataSource) throws SQLException {
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

  /** A short name: {@code postgresql}, {@code mariadb}, {@code mysql} or {@code h2}. */
  public String name() {
    return sql.name();
  }

  /**
   * The class path folder of this database's one schema file, {@code
   * beforeMigrate__idem_tables.sql}, for instance {@code dev/idem/jdbc/flyway/postgresql}: with
   * {@code classpath:} in front, a Flyway location, where the file is a callback that creates what
   * is missing before every migrate, with no version of its own to clash with an application's.
   */
  public String migrations() {
    return sql.migrations();
  }

  /**
   * Whether {@link JdbcStoreConfig.Builder#readCommittedClaims} applies: MySQL and MariaDB, whose
   * REPEATABLE READ takes gap locks on claims.
   */
  public boolean hasReadCommittedClaims() {
    return sql.readCommittedNextTransaction() != null;
  }

  /** True when {@code e} says a unique key was violated. */
  public boolean isDuplicateKey(SQLException e) {
    return sql.isDuplicateKey(e);
  }

  /** True when {@code e} is a deadlock or serialization failure that a retry resolves. */
  public boolean isTransient(SQLException e) {
    return sql.isTransient(e);
  }

  Statements sql() {
    return sql;
  }

  @Override
  public String toString() {
    return sql.toString();
  }
}
