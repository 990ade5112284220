package dev.idem.core.memory;

import dev.idem.core.ClaimRequest;
import dev.idem.core.ClaimResult;
import dev.idem.core.IdempotencyRecord;
import dev.idem.core.Lease;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;

/** The claim rules of {@link dev.idem.core.IdempotencyStore#claim}, applied to one record. */
record Claim(ClaimResult result, StoredRecord next) {

  /**
   * @param live the record if present and not expired, else null
   * @param fences hands out the fence of a successful claim: greater than every fence before it
   * @return the answer, and the record to store (null to leave the stored one as it is)
   */
  static Claim decide(StoredRecord live, ClaimRequest request, Instant now, LongSupplier fences) {
    boolean token = live != null && live.record().token();
    if (request.requireIssued() && !token) {
      return new Claim(new ClaimResult.UnknownToken(), null);
    }
    StoredRecord.ClaimContext context =
        new StoredRecord.ClaimContext(request.key(), request.fingerprint(), request.lease(), now);
    if (live == null) {
      return claimed(context, fences.getAsLong(), false, null);
    }
    IdempotencyRecord r = live.record();
    return switch (r.state()) {
      case ISSUED -> claimed(context, fences.getAsLong(), true, live.tokenExpiresAt());
      case IN_PROGRESS -> {
        if (!now.isBefore(r.leaseUntil())) {
          yield claimed(context, fences.getAsLong(), r.token(), live.tokenExpiresAt());
        }
        yield request.fingerprint().matches(r.fingerprint())
            ? new Claim(new ClaimResult.InProgress(r), null)
            : new Claim(new ClaimResult.Mismatch(r), null);
      }
      case COMPLETED ->
          request.fingerprint().matches(r.fingerprint())
              ? new Claim(new ClaimResult.Completed(r), null)
              : new Claim(new ClaimResult.Mismatch(r), null);
    };
  }

  private static Claim claimed(
      StoredRecord.ClaimContext c, long fence, boolean token, Instant tokenExpiresAt) {
    // The owner only has to differ between claims; it is never shown to a client, so a fast
    // generator will do where UUID.randomUUID() would take a lock on SecureRandom.
    ThreadLocalRandom random = ThreadLocalRandom.current();
    String owner = new UUID(random.nextLong(), random.nextLong()).toString();
    StoredRecord next = StoredRecord.claimed(c, fence, owner, token, tokenExpiresAt);
    Lease lease = new Lease(c.key(), fence, owner, next.record().leaseUntil());
    return new Claim(new ClaimResult.Claimed(lease), next);
  }
}
