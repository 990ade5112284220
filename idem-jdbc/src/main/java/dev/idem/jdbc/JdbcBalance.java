package dev.idem.jdbc;

import dev.idem.jdbc.internal.SqlIdentifiers;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Guarded updates of a numeric column with a version column beside it, such as the article's {@code
 * account(balance, version)} (its section 4). Two paths:
 *
 * <ul>
 *   <li>{@link #deduct}: one conditional {@code UPDATE ... SET balance = balance - ?, version =
 *       version + 1 WHERE id = ? AND balance >= ?}. No read, no retry, no lost race: the database
 *       serialises the updates of the row. Prefer it whenever the rule fits in the WHERE clause.
 *   <li>{@link #read} then {@link #deductAtVersion}: the article's optimistic path, for rules that
 *       need the row in Java first; run it under {@link dev.idem.core.retry.OptimisticRetry}, since
 *       it loses when another update got there first.
 * </ul>
 *
 * <p>The caller passes the connection, so the update joins its transaction. Table and column names
 * are validated identifiers; values are bound parameters.
 */
public final class JdbcBalance {

  /** The amount and version of one row. */
  public record Versioned(BigDecimal amount, long version) {}

  private final String deduct;
  private final String deductAtVersion;
  private final String read;

  /**
   * @param table e.g. {@code account}
   * @param idColumn the unique id column
   * @param amountColumn the numeric column to deduct from
   * @param versionColumn the version column, bumped by every deduction
   */
  public JdbcBalance(String table, String idColumn, String amountColumn, String versionColumn) {
    String t = SqlIdentifiers.table(table);
    String id = SqlIdentifiers.column(idColumn);
    String amount = SqlIdentifiers.column(amountColumn);
    String version = SqlIdentifiers.column(versionColumn);
    String set =
        "UPDATE "
            + t
            + " SET "
            + amount
            + " = "
            + amount
            + " - ?, "
            + version
            + " = "
            + version
            + " + 1 WHERE "
            + id
            + " = ? AND "
            + amount
            + " >= ?";
    this.deduct = set;
    this.deductAtVersion = set + " AND " + version + " = ?";
    this.read = "SELECT " + amount + ", " + version + " FROM " + t + " WHERE " + id + " = ?";
  }

  /**
   * Deducts {@code amount} if the row holds at least that much, in one statement.
   *
   * @return true when deducted; false when the row is missing or holds too little
   */
  public boolean deduct(Connection c, Object id, BigDecimal amount) throws SQLException {
    return update(c, deduct, amount, id, null);
  }

  /** The row's amount and version, or empty when there is no such row. */
  public Optional<Versioned> read(Connection c, Object id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(read)) {
      ps.setObject(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next()
            ? Optional.of(new Versioned(rs.getBigDecimal(1), rs.getLong(2)))
            : Optional.empty();
      }
    }
  }

  /**
   * Deducts {@code amount} only if the row is still at {@code version} and holds enough.
   *
   * @return true when deducted; false when another update changed the row first (retry from {@link
   *     #read}), or when it holds too little
   */
  public boolean deductAtVersion(Connection c, Object id, BigDecimal amount, long version)
      throws SQLException {
    return update(c, deductAtVersion, amount, id, version);
  }

  private static boolean update(
      Connection c, String sql, BigDecimal amount, Object id, @Nullable Long version)
      throws SQLException {
    Objects.requireNonNull(id, "id");
    if (amount == null || amount.signum() <= 0) {
      throw new IllegalArgumentException("amount must be positive, was " + amount);
    }
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setBigDecimal(1, amount);
      ps.setObject(2, id);
      ps.setBigDecimal(3, amount);
      if (version != null) {
        ps.setLong(4, version);
      }
      return ps.executeUpdate() == 1;
    }
  }
}
