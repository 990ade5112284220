package dev.idem.core.memory;

import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.ClaimVerdict;
import dev.idem.core.store.IdempotencyRecord;
import dev.idem.core.store.Lease;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/** A claim on one record: the {@link ClaimVerdict}, and the record a claim that takes it writes. */
record Claim(ClaimResult result, @Nullable StoredRecord next) {

  /**
   * @param live the record if present and not expired, else null
   * @param fences hands out the fence of a successful claim: greater than every fence before it
   * @return the answer, and the record to store (null to leave the stored one as it is)
   */
  static Claim decide(
      @Nullable StoredRecord live, ClaimRequest request, Instant now, LongSupplier fences) {
    IdempotencyRecord found = live == null ? null : live.record();
    ClaimVerdict verdict = ClaimVerdict.of(found, request, now);
    if (verdict != ClaimVerdict.TAKE) {
      return new Claim(verdict.answer(found), null);
    }
    StoredRecord.ClaimContext context =
        new StoredRecord.ClaimContext(request.key(), request.fingerprint(), request.lease(), now);
    return found == null
        ? claimed(context, fences.getAsLong(), false, null)
        : claimed(
            context,
            fences.getAsLong(),
            found.token(),
            Objects.requireNonNull(live).tokenExpiresAt());
  }

  private static Claim claimed(
      StoredRecord.ClaimContext c, long fence, boolean token, @Nullable Instant tokenExpiresAt) {
    // The owner only has to differ between claims; it is never shown to a client, so a fast
    // generator will do where UUID.randomUUID() would take a lock on SecureRandom.
    ThreadLocalRandom random = ThreadLocalRandom.current();
    String owner = new UUID(random.nextLong(), random.nextLong()).toString();
    StoredRecord next = StoredRecord.claimed(c, fence, owner, token, tokenExpiresAt);
    Lease lease =
        new Lease(c.key(), fence, owner, Objects.requireNonNull(next.record().leaseUntil()));
    return new Claim(new ClaimResult.Claimed(lease), next);
  }
}
