package dev.idem.core.memory;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.IdempotencyRecord;
import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordState;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * One immutable record as the in-memory store holds it: the public snapshot plus the owner token
 * and, for records that began as tokens, when the token itself expires.
 */
record StoredRecord(
    IdempotencyRecord record, @Nullable String owner, @Nullable Instant tokenExpiresAt) {

  static StoredRecord issued(IdempotencyKey key, long fence, Instant expiresAt) {
    return new StoredRecord(
        new IdempotencyRecord(
            key, RecordState.ISSUED, Fingerprint.NONE, fence, null, expiresAt, true, null),
        null,
        expiresAt);
  }

  static StoredRecord claimed(
      ClaimContext c, long fence, String owner, boolean token, @Nullable Instant tokenExpiresAt) {
    Instant leaseUntil = c.now().plus(c.lease());
    return new StoredRecord(
        new IdempotencyRecord(
            c.key(),
            RecordState.IN_PROGRESS,
            c.fingerprint(),
            fence,
            leaseUntil,
            inProgressExpiry(leaseUntil, c.lease(), tokenExpiresAt),
            token,
            null),
        owner,
        tokenExpiresAt);
  }

  boolean isExpired(Instant now) {
    return !now.isBefore(record.expiresAt());
  }

  boolean isOwnedBy(Lease lease) {
    return record.state() == RecordState.IN_PROGRESS
        && record.fence() == lease.fence()
        && lease.owner().equals(owner);
  }

  StoredRecord completed(Outcome outcome, Instant expiresAt) {
    IdempotencyRecord r = record;
    return new StoredRecord(
        new IdempotencyRecord(
            r.key(),
            RecordState.COMPLETED,
            r.fingerprint(),
            r.fence(),
            null,
            expiresAt,
            r.token(),
            outcome),
        null,
        tokenExpiresAt);
  }

  /** Back to ISSUED for a token that has not expired; otherwise null, which removes it. */
  @Nullable StoredRecord released(Instant now) {
    if (!record.token() || tokenExpiresAt == null || !now.isBefore(tokenExpiresAt)) {
      return null;
    }
    return issued(record.key(), record.fence(), tokenExpiresAt);
  }

  StoredRecord renewed(Instant leaseUntil, Duration lease) {
    IdempotencyRecord r = record;
    return new StoredRecord(
        new IdempotencyRecord(
            r.key(),
            r.state(),
            r.fingerprint(),
            r.fence(),
            leaseUntil,
            inProgressExpiry(leaseUntil, lease, tokenExpiresAt),
            r.token(),
            null),
        owner,
        tokenExpiresAt);
  }

  // A record whose lease ended is kept one more lease length so that a takeover still finds its
  // fence and raises it, and a token record lives at least as long as the token.
  private static Instant inProgressExpiry(
      Instant leaseUntil, Duration lease, @Nullable Instant tokenEnd) {
    Instant kept = leaseUntil.plus(lease);
    return tokenEnd != null && tokenEnd.isAfter(kept) ? tokenEnd : kept;
  }

  /** What a claim needs to build its record. */
  record ClaimContext(IdempotencyKey key, Fingerprint fingerprint, Duration lease, Instant now) {}
}
