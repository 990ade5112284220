package dev.idem.jdbc.internal;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.ClaimVerdict;
import dev.idem.core.store.IdempotencyRecord;
import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordState;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** One row of the records table as read, with the database's "now" of the same statement. */
public record RecordRow(IdempotencyRecord record, @Nullable String owner, long nowMs) {

  /**
   * Reads the current row of {@code rs} (the columns of {@link StoreSql#select()}), the record of
   * {@code key}: the row was found by the key's digest, and a step's row holds its root's scope and
   * value in its own columns, so the key is the one asked for, never one read back.
   */
  public static RecordRow read(ResultSet rs, IdempotencyKey key) throws SQLException {
    RecordState state = RecordState.valueOf(rs.getString("state"));
    long leaseUntil = rs.getLong("lease_until");
    boolean hasLease = !rs.wasNull();
    String kind = rs.getString("outcome_kind");
    byte[] payload = rs.getBytes("outcome");
    Outcome outcome = kind == null ? null : new Outcome(Outcome.Kind.valueOf(kind), payload);
    IdempotencyRecord record =
        new IdempotencyRecord(
            key,
            state,
            new Fingerprint(rs.getString("fingerprint").trim()),
            rs.getLong("fence"),
            hasLease ? Instant.ofEpochMilli(leaseUntil) : null,
            Instant.ofEpochMilli(rs.getLong("expires_at")),
            rs.getBoolean("token"),
            state == RecordState.COMPLETED ? outcome : null);
    return new RecordRow(record, rs.getString("owner"), rs.getLong("now_ms"));
  }

  /** True unless the row has expired by the database's clock. */
  public boolean isLive() {
    return record.expiresAt().toEpochMilli() > nowMs;
  }

  /**
   * What a claim that did not win (or whose result is read back) means: its own lease if the row
   * carries its owner, else the {@link ClaimVerdict} on the row. Returns null when the row is
   * claimable again by now (released, expired or its lease ended since the claim statement ran):
   * the caller claims again.
   *
   * @param row the row after the claim statement, or null if there is none
   * @param owner the owner token the claim statement tried to write
   */
  public static @Nullable ClaimResult classify(
      @Nullable RecordRow row, ClaimRequest request, String owner) {
    if (row != null && owner.equals(row.owner) && row.record.state() == RecordState.IN_PROGRESS) {
      IdempotencyRecord r = row.record;
      return new ClaimResult.Claimed(
          new Lease(request.key(), r.fence(), owner, Objects.requireNonNull(r.leaseUntil())));
    }
    IdempotencyRecord live = row != null && row.isLive() ? row.record : null;
    ClaimVerdict verdict =
        ClaimVerdict.of(live, request, row == null ? Instant.MIN : Instant.ofEpochMilli(row.nowMs));
    return verdict == ClaimVerdict.TAKE ? null : verdict.answer(live);
  }

  /**
   * The answer to a joined claim of a key that another open transaction is claiming: what the
   * committed {@code row} says when that answers the claim (a replay, key reuse), else in progress,
   * with the lease asked for, since the other claim's own row cannot be read until its transaction
   * ends.
   */
  public static ClaimResult busy(@Nullable RecordRow row, ClaimRequest request) {
    ClaimResult answer = row == null ? null : classify(row, request, "");
    if (answer != null && !(answer instanceof ClaimResult.UnknownToken)) {
      return answer;
    }
    Instant now = Instant.now();
    return new ClaimResult.InProgress(
        new IdempotencyRecord(
            request.key(),
            RecordState.IN_PROGRESS,
            request.fingerprint(),
            0,
            now.plus(request.lease()),
            now.plus(request.lease().multipliedBy(2)),
            request.requireIssued(),
            null));
  }
}
