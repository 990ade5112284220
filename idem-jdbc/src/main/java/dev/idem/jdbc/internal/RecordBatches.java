package dev.idem.jdbc.internal;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.IdempotencyStore.Completion;
import dev.idem.core.store.Outcome;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JDBC store's batches, outside any transaction of the caller's. Claims: one insert writes an
 * in-progress row for every key that has none (skipping the others), one read then fetches the row
 * of every key, so that the batch tells the claims it took from the rest and answers those from
 * what their rows say; a key whose row only a claim's update could take (expired, its lease ended)
 * is claimed alone, as are capped claims, tokens' and steps', and every claim on a database that
 * cannot skip duplicates in an insert (H2). Completions: one batch of statements.
 */
public final class RecordBatches {

  private static final Logger log = LoggerFactory.getLogger(RecordBatches.class);

  /** The most keys one insert and one read carry. */
  static final int MOST_PER_STATEMENT = 200;

  private final String table;
  private final String row;
  private final Statements dialect;
  private final String select;
  private final StoreSql sql;
  private final Jdbc jdbc;
  private final @Nullable String readCommitted;
  private final boolean claims;

  /**
   * @param readCommitted what makes the claims' transaction READ COMMITTED, or null
   */
  public RecordBatches(
      Statements dialect, String table, StoreSql sql, Jdbc jdbc, @Nullable String readCommitted) {
    this.dialect = dialect;
    this.table = table;
    this.sql = sql;
    this.jdbc = jdbc;
    this.readCommitted = readCommitted;
    this.claims = dialect.insertIgnoringDuplicates(table, "", "") != null;
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
   * Each request's claim: together where it can, else by {@code alone}.
   *
   * @param owners makes a new owner for each claim
   */
  public List<CompletableFuture<ClaimResult>> claimAll(
      List<ClaimRequest> requests,
      Supplier<String> owners,
      Function<ClaimRequest, CompletableFuture<ClaimResult>> alone) {
    List<Integer> together = new ArrayList<>();
    for (int i = 0; i < requests.size(); i++) {
      ClaimRequest request = requests.get(i);
      if (!request.capped() && !request.requireIssued() && !request.key().isStep()) {
        together.add(i);
      }
    }
    Map<Integer, ClaimResult> answers = new HashMap<>();
    if (claims && together.size() > 1) {
      // in the order of their ids, so that two batches lock their rows in one order
      together.sort(Comparator.comparing(i -> requests.get(i).key().digest()));
      claimTogether(requests, together, owners, answers);
    }
    List<CompletableFuture<ClaimResult>> stages = new ArrayList<>(requests.size());
    for (int i = 0; i < requests.size(); i++) {
      ClaimResult answer = answers.get(i);
      stages.add(
          answer != null
              ? CompletableFuture.completedFuture(answer)
              : alone.apply(requests.get(i)));
    }
    return stages;
  }

  // What the inserts and reads answer, in one transaction; a failure rolls it back and leaves
  // every claim to be made alone.
  private void claimTogether(
      List<ClaimRequest> requests,
      List<Integer> together,
      Supplier<String> owners,
      Map<Integer, ClaimResult> answers) {
    List<ClaimRequest> sent = together.stream().map(requests::get).toList();
    List<String> owned = sent.stream().map(r -> owners.get()).toList();
    Map<String, RecordRow> rows = new HashMap<>();
    try {
      jdbc.run(
          "claim",
          c -> {
            if (readCommitted != null) {
              try (Statement s = c.createStatement()) {
                s.execute(readCommitted);
              }
            }
            // one transaction, so that a failure takes back every row it wrote: none is left
            // held by an owner nobody knows
            return Jdbc.inOneTransaction(
                c,
                () -> {
                  rows.putAll(claim(c, sent, owned));
                  return true;
                });
          });
    } catch (RuntimeException e) {
      log.debug("the claims of {} keys together failed; each is claimed alone", sent.size(), e);
      return;
    }
    for (int j = 0; j < sent.size(); j++) {
      ClaimRequest request = sent.get(j);
      ClaimResult answer =
          RecordRow.classify(rows.get(request.key().digest()), request, owned.get(j));
      if (answer != null) {
        answers.put(together.get(j), answer);
      }
    }
  }

  /**
   * Each completion: together in one batch of statements where it can (not a step's, and within
   * {@code maxOutcomeBytes} or an unstored mark), else by {@code alone}. A completion the database
   * answers without a count fails its stage, so that the engine reads back what it stored.
   */
  public List<CompletableFuture<Boolean>> completeAll(
      List<Completion> completions,
      int maxOutcomeBytes,
      Function<Completion, CompletableFuture<Boolean>> alone) {
    List<Integer> together = new ArrayList<>();
    for (int i = 0; i < completions.size(); i++) {
      Completion c = completions.get(i);
      boolean fits =
          c.outcome().payload().length <= maxOutcomeBytes
              || c.outcome().kind() == Outcome.Kind.UNSTORED;
      if (fits && !c.lease().key().isStep()) {
        together.add(i);
      }
    }
    Map<Integer, CompletableFuture<Boolean>> batched = new HashMap<>();
    if (together.size() > 1) {
      together.sort(Comparator.comparing(i -> completions.get(i).lease().key().digest()));
      completeTogether(completions, together, batched);
    }
    List<CompletableFuture<Boolean>> answers = new ArrayList<>(completions.size());
    for (int i = 0; i < completions.size(); i++) {
      CompletableFuture<Boolean> answer = batched.get(i);
      answers.add(answer != null ? answer : alone.apply(completions.get(i)));
    }
    return answers;
  }

  private void completeTogether(
      List<Completion> completions,
      List<Integer> together,
      Map<Integer, CompletableFuture<Boolean>> batched) {
    try {
      int[] counts =
          jdbc.run(
              "complete",
              c -> {
                try (PreparedStatement ps = c.prepareStatement(sql.complete())) {
                  for (int i : together) {
                    Completion done = completions.get(i);
                    Params.bind(
                        ps,
                        done.outcome().kind().name(),
                        done.outcome().payload(),
                        Math.max(1, done.retention().toMillis()),
                        done.lease().key().digest(),
                        done.lease().fence(),
                        done.lease().owner());
                    ps.addBatch();
                  }
                  return ps.executeBatch();
                }
              });
      for (int j = 0; j < together.size(); j++) {
        batched.put(
            together.get(j),
            counts[j] >= 0
                ? CompletableFuture.completedFuture(counts[j] == 1)
                : CompletableFuture.failedFuture(
                    new IdempotencyStoreException("the database did not count the completion")));
      }
    } catch (IdempotencyStoreException e) {
      for (int i : together) {
        batched.put(i, CompletableFuture.failedFuture(e));
      }
    }
  }

  // Writes an in-progress row owned by owners.get(i) for each request whose key has no row, then
  // reads every key's row (by its id; a key without one is absent). The requests come in the
  // order of their ids.
  private Map<String, RecordRow> claim(
      Connection c, List<ClaimRequest> requests, List<String> owners) throws SQLException {
    Map<String, RecordRow> rows = new HashMap<>();
    for (int from = 0; from < requests.size(); from += MOST_PER_STATEMENT) {
      int to = Math.min(requests.size(), from + MOST_PER_STATEMENT);
      insert(c, requests.subList(from, to), owners.subList(from, to));
    }
    for (int from = 0; from < requests.size(); from += MOST_PER_STATEMENT) {
      List<IdempotencyKey> keys =
          requests.subList(from, Math.min(requests.size(), from + MOST_PER_STATEMENT)).stream()
              .map(ClaimRequest::key)
              .toList();
      readRows(c, dialect, select, keys, rows);
    }
    return rows;
  }

  private void insert(Connection c, List<ClaimRequest> requests, List<String> owners)
      throws SQLException {
    String values = String.join(", ", Collections.nCopies(requests.size(), row));
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

  /**
   * Reads the row of each of {@code keys} into {@code rows}, by id (a key without one is left out),
   * with {@code select}: a query over the records table that ends in {@code WHERE id IN (}, its
   * rows locked as {@code dialect} locks a read.
   */
  static void readRows(
      Connection c,
      Statements dialect,
      String select,
      List<IdempotencyKey> keys,
      Map<String, RecordRow> rows)
      throws SQLException {
    String marks = String.join(", ", Collections.nCopies(keys.size(), "?"));
    Map<String, IdempotencyKey> byId = new HashMap<>();
    try (PreparedStatement ps = c.prepareStatement(select + marks + ")" + dialect.lockingRead())) {
      for (int i = 0; i < keys.size(); i++) {
        IdempotencyKey key = keys.get(i);
        byId.put(key.digest(), key);
        ps.setString(i + 1, key.digest());
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String id = rs.getString("id").trim();
          IdempotencyKey key = byId.get(id);
          if (key != null) {
            rows.put(id, RecordRow.read(rs, key));
          }
        }
      }
    }
  }
}
