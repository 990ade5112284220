package dev.idem.jdbc.internal;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.ClaimRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The claims of many keys in two statements instead of one or more per key: one insert writes an
 * in-progress row for every key that has none (skipping the others), one read then fetches the row
 * of every key, so that the store can tell which of them this batch took and answer the rest from
 * what their rows say. A key whose row only a claim's update could take (expired, its lease ended)
 * is left for that claim, alone.
 */
public final class AbsentClaims {

  /** The most keys one insert and one read carry. */
  static final int MOST_PER_STATEMENT = 200;

  private final String table;
  private final String row;
  private final Statements dialect;
  private final String select;

  /**
   * Claims on {@code table} in {@code dialect}, or null when the dialect cannot insert while
   * skipping duplicates (H2).
   */
  public static @Nullable AbsentClaims of(Statements dialect, String table) {
    return dialect.insertIgnoringDuplicates(table, "", "") == null
        ? null
        : new AbsentClaims(dialect, table);
  }

  private AbsentClaims(Statements dialect, String table) {
    this.dialect = dialect;
    this.table = table;
    String now = dialect.now();
    this.row =
        "(?, ?, ?, 'IN_PROGRESS', ?, "
            + dialect.fenceFloor()
            + ", ?, "
            + now
            + " + ?, "
            + now
            + " + 2 * ?, FALSE, NULL, NULL, NULL, "
            + now
            + ")";
    this.select = "SELECT id, " + Statements.rowColumns(now) + " FROM " + table + " WHERE id IN (";
  }

  /**
   * Writes an in-progress row owned by {@code owners.get(i)} for each request whose key has no row,
   * then reads every key's row.
   *
   * @param requests claims of distinct keys, none capped, none for a token, none a step's; in the
   *     order of their ids, so that two batches take their rows' locks in one order
   * @return each key's row by its id, as read after the insert; a key without one is absent
   */
  public Map<String, RecordRow> claim(
      Connection c, List<ClaimRequest> requests, List<String> owners) throws SQLException {
    Map<String, RecordRow> rows = new HashMap<>();
    for (int from = 0; from < requests.size(); from += MOST_PER_STATEMENT) {
      int to = Math.min(requests.size(), from + MOST_PER_STATEMENT);
      insert(c, requests.subList(from, to), owners.subList(from, to));
    }
    for (int from = 0; from < requests.size(); from += MOST_PER_STATEMENT) {
      read(c, requests.subList(from, Math.min(requests.size(), from + MOST_PER_STATEMENT)), rows);
    }
    return rows;
  }

  private void insert(Connection c, List<ClaimRequest> requests, List<String> owners)
      throws SQLException {
    String values = String.join(", ", java.util.Collections.nCopies(requests.size(), row));
    String insert = dialect.insertIgnoringDuplicates(table, Statements.RECORD_COLUMNS, values);
    try (PreparedStatement ps = c.prepareStatement(insert)) {
      int p = 1;
      for (int i = 0; i < requests.size(); i++) {
        ClaimRequest request = requests.get(i);
        IdempotencyKey key = request.key();
        long leaseMs = Math.max(1, request.lease().toMillis());
        ps.setString(p++, key.digest());
        ps.setString(p++, key.scope());
        ps.setString(p++, key.value());
        ps.setString(p++, request.fingerprint().value());
        ps.setString(p++, owners.get(i));
        ps.setLong(p++, leaseMs);
        ps.setLong(p++, leaseMs);
      }
      ps.executeUpdate();
    }
  }

  private void read(Connection c, List<ClaimRequest> requests, Map<String, RecordRow> rows)
      throws SQLException {
    String marks = String.join(", ", java.util.Collections.nCopies(requests.size(), "?"));
    Map<String, IdempotencyKey> keys = new HashMap<>();
    try (PreparedStatement ps = c.prepareStatement(select + marks + ")" + dialect.lockingRead())) {
      for (int i = 0; i < requests.size(); i++) {
        IdempotencyKey key = requests.get(i).key();
        keys.put(key.digest(), key);
        ps.setString(i + 1, key.digest());
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String id = rs.getString("id").trim();
          IdempotencyKey key = keys.get(id);
          if (key != null) {
            rows.put(id, RecordRow.read(rs, key));
          }
        }
      }
    }
  }
}
