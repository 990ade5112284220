package dev.idem.core.store;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A snapshot of the stored record of one key.
 *
 * @param key the key
 * @param state ISSUED, IN_PROGRESS or COMPLETED
 * @param fingerprint the fingerprint of the request that claimed it; {@link Fingerprint#NONE} for
 *     ISSUED records
 * @param fence the fence of the latest claim; 0 for an ISSUED record never claimed
 * @param leaseUntil the end of the current lease (IN_PROGRESS only, else null)
 * @param expiresAt when the record disappears by itself: the token's end for ISSUED, the end of
 *     retention for COMPLETED; for IN_PROGRESS the store may keep it past its lease
 * @param token true when the record began as an issued token (release puts it back to ISSUED)
 * @param outcome the stored outcome (COMPLETED only, else null)
 */
public record IdempotencyRecord(
    IdempotencyKey key,
    RecordState state,
    Fingerprint fingerprint,
    long fence,
    @Nullable Instant leaseUntil,
    Instant expiresAt,
    boolean token,
    @Nullable Outcome outcome) {

  public IdempotencyRecord {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(fingerprint, "fingerprint");
    if (state == RecordState.COMPLETED) {
      Objects.requireNonNull(outcome, "a completed record has an outcome");
    }
    if (state == RecordState.IN_PROGRESS) {
      Objects.requireNonNull(leaseUntil, "an in-progress record has a lease end");
    }
  }
}
