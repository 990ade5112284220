package dev.idem.bench;

import dev.idem.jdbc.JdbcDialect;
import java.util.List;

/**
 * A database server the JDBC store benchmark runs against, with the SQL of its baseline: the
 * cheapest statement that does the one thing a claim must do, insert a key unless it is there.
 *
 * @param name what the report calls it
 * @param url the JDBC URL, from an environment variable or the loopback default the tests use
 * @param dialect the store's dialect for it
 * @param createTables creates the raw-insert table and the business table if missing
 * @param rawInsert inserts one id into {@code bench_raw}, doing nothing if it is there
 * @param pairInsert the least a hand-written store's claim must do on the store's own schema:
 *     insert a row in progress unless the key is there, with times sent by the client
 */
record BenchDatabase(
    String name,
    String url,
    JdbcDialect dialect,
    List<String> createTables,
    String rawInsert,
    String pairInsert) {

  /**
   * The table of the hand-written pair: the store's own schema, so that the pair and the store
   * write the same rows and indexes.
   */
  static final String PAIR_TABLE = "idem_bench_pair";

  // The columns a claim must fill; the rest stay NULL until the completion.
  private static final String PAIR_COLUMNS =
      " (id, scope, key_value, state, fingerprint, fence, owner, lease_until, expires_at, token,"
          + " updated_at) VALUES (?, ?, ?, 'IN_PROGRESS', '', 1, ?, ?, ?, FALSE, ?)";

  /** The least a completion must do: one owner-checked update by primary key. */
  static final String PAIR_UPDATE =
      "UPDATE "
          + PAIR_TABLE
          + " SET state = 'COMPLETED', outcome_kind = 'SUCCESS', outcome = ?, expires_at = ?,"
          + " lease_until = NULL, owner = NULL, updated_at = ? WHERE id = ? AND owner = ?";

  /** The table the raw inserts go to. */
  static final String RAW_TABLE = "bench_raw";

  /** The table the business transactions insert into. */
  static final String BUSINESS_TABLE = "bench_orders";

  /** The business row each business transaction inserts: an order id and an amount. */
  static final String BUSINESS_INSERT =
      "INSERT INTO " + BUSINESS_TABLE + " (id, amount) VALUES (?, ?)";

  /** The same database kind and statements at another URL. */
  BenchDatabase at(String otherUrl) {
    return new BenchDatabase(name, otherUrl, dialect, createTables, rawInsert, pairInsert);
  }

  static BenchDatabase postgresql() {
    return new BenchDatabase(
        "PostgreSQL",
        env("IDEM_POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"),
        JdbcDialect.postgresql(),
        List.of(
            "CREATE TABLE IF NOT EXISTS " + RAW_TABLE + " (id CHAR(64) NOT NULL PRIMARY KEY)",
            "CREATE TABLE IF NOT EXISTS "
                + BUSINESS_TABLE
                + " (id CHAR(64) NOT NULL PRIMARY KEY, amount BIGINT NOT NULL)"),
        "INSERT INTO " + RAW_TABLE + " (id) VALUES (?) ON CONFLICT DO NOTHING",
        "INSERT INTO " + PAIR_TABLE + PAIR_COLUMNS + " ON CONFLICT DO NOTHING");
  }

  static BenchDatabase mariadb() {
    // ASCII ids, as in the store's own MariaDB schema, so both tables index the same bytes.
    return new BenchDatabase(
        "MariaDB",
        // Server-side prepared statements, as docs/jdbc.md recommends for MariaDB: the text
        // protocol makes the server parse the store's long claim upsert on every call.
        env(
            "IDEM_MARIADB_URL",
            "jdbc:mariadb://127.0.0.1:3306/test?user=root&useServerPrepStmts=true"),
        JdbcDialect.mariadb(),
        List.of(
            "CREATE TABLE IF NOT EXISTS "
                + RAW_TABLE
                + " (id CHAR(64) CHARACTER SET ascii NOT NULL PRIMARY KEY) ENGINE = InnoDB",
            "CREATE TABLE IF NOT EXISTS "
                + BUSINESS_TABLE
                + " (id CHAR(64) CHARACTER SET ascii NOT NULL PRIMARY KEY,"
                + " amount BIGINT NOT NULL) ENGINE = InnoDB"),
        "INSERT IGNORE INTO " + RAW_TABLE + " (id) VALUES (?)",
        "INSERT IGNORE INTO " + PAIR_TABLE + PAIR_COLUMNS);
  }

  private static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isBlank() ? fallback : value;
  }
}
