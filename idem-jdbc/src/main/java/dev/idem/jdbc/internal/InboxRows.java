package dev.idem.jdbc.internal;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.IdempotencyRecord;
import dev.idem.core.store.Outcome;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The inbox's rows for a batch of messages, on the connection of the transaction that also writes
 * their effects: one insert writes a completed row for every key that has none (one insert a key on
 * H2, which cannot skip duplicates in one), marked with the batch's owner so that a read can tell
 * the rows it wrote from those it met; rows it wrote are taken back by one delete. Keys come in the
 * order of their ids, so that two batches wait on each other's rows in one order and never deadlock
 * on them.
 */
public final class InboxRows {

  private final Statements dialect;
  private final String table;
  private final boolean together;
  private final String row;
  private final String select;

  public InboxRows(Statements dialect, String table) {
    this.dialect = dialect;
    this.table = table;
    String now = dialect.now();
    this.row =
        "(?, ?, ?, 'COMPLETED', '', "
            + dialect.fenceFloor()
            + ", ?, NULL, "
            + now
            + " + ?, FALSE, NULL, ?, ?, "
            + now
            + ")";
    this.together = dialect.insertIgnoringDuplicates(table, "", "") != null;
    this.select = "SELECT id, " + Statements.rowColumns(now) + " FROM " + table + " WHERE id IN (";
  }

  /**
   * The rows of a batch after one insert per {@value RecordBatches#MOST_PER_STATEMENT} keys.
   *
   * @param written the ids of the rows this batch wrote
   * @param met the record of every other key that has a live one, by id
   */
  public record Rows(Set<String> written, Map<String, IdempotencyRecord> met) {}

  /**
   * Writes {@code outcome}, completed and owned by {@code owner}, for every key of {@code keys}
   * (distinct, in the order of their ids) that has no row, waiting for a transaction that holds one
   * to end, then reads the rows it did not write.
   */
  public Rows insertCompleted(
      Connection c, List<IdempotencyKey> keys, Outcome outcome, long retentionMs, String owner)
      throws SQLException {
    int inserted = 0;
    int most = together ? RecordBatches.MOST_PER_STATEMENT : 1;
    for (int from = 0; from < keys.size(); from += most) {
      List<IdempotencyKey> part = keys.subList(from, Math.min(keys.size(), from + most));
      String values = String.join(", ", Collections.nCopies(part.size(), row));
      String sql =
          together
              ? dialect.insertIgnoringDuplicates(table, Statements.RECORD_COLUMNS, values)
              : dialect.insertIfAbsent(table, Statements.RECORD_COLUMNS, values);
      try (PreparedStatement ps = c.prepareStatement(String.valueOf(sql))) {
        int p = 1;
        for (IdempotencyKey key : part) {
          ps.setString(p++, key.digest());
          ps.setString(p++, key.scope());
          ps.setString(p++, key.value());
          ps.setString(p++, owner);
          ps.setLong(p++, retentionMs);
          ps.setString(p++, outcome.kind().name());
          ps.setBytes(p++, outcome.payload());
        }
        inserted += ps.executeUpdate();
      } catch (SQLException e) {
        // a plain insert (H2) that met a row; the transaction goes on
        if (together || !dialect.isDuplicateKey(e)) {
          throw e;
        }
      }
    }
    Set<String> written = new HashSet<>();
    Map<String, IdempotencyRecord> met = new HashMap<>();
    if (inserted == keys.size()) {
      keys.forEach(k -> written.add(k.digest()));
      return new Rows(written, met);
    }
    Map<String, RecordRow> found = new HashMap<>();
    for (int from = 0; from < keys.size(); from += RecordBatches.MOST_PER_STATEMENT) {
      List<IdempotencyKey> part =
          keys.subList(from, Math.min(keys.size(), from + RecordBatches.MOST_PER_STATEMENT));
      RecordBatches.readRows(c, dialect, select, part, found);
    }
    found.forEach(
        (id, row) -> {
          if (owner.equals(row.owner())) {
            written.add(id);
          } else if (row.isLive()) {
            met.put(id, row.record());
          }
        });
    return new Rows(written, met);
  }

  /** Deletes the rows of {@code keys} that {@code owner} wrote. */
  public void deleteWritten(Connection c, List<IdempotencyKey> keys, String owner)
      throws SQLException {
    for (int from = 0; from < keys.size(); from += RecordBatches.MOST_PER_STATEMENT) {
      List<IdempotencyKey> part =
          keys.subList(from, Math.min(keys.size(), from + RecordBatches.MOST_PER_STATEMENT));
      String marks = String.join(", ", Collections.nCopies(part.size(), "?"));
      try (PreparedStatement ps =
          c.prepareStatement(
              "DELETE FROM " + table + " WHERE owner = ? AND id IN (" + marks + ")")) {
        ps.setString(1, owner);
        for (int i = 0; i < part.size(); i++) {
          ps.setString(i + 2, part.get(i).digest());
        }
        ps.executeUpdate();
      }
    }
  }
}
