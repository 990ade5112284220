package dev.idem.core.store;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.StoreFullException;
import java.time.Duration;
import java.util.Objects;

/**
 * What a caller asks of {@link IdempotencyStore#claim}.
 *
 * @param key the key to claim
 * @param fingerprint the fingerprint of this request
 * @param lease how long the claim holds before another caller may take it over
 * @param requireIssued true for token use: only an ISSUED record (or an in-progress one whose lease
 *     ended, or a completed one) may be claimed; one that is absent or did not begin as a token
 *     yields {@link ClaimResult.UnknownToken}
 * @param scopeCap the most live records the key's scope may hold: a claim that would add one more
 *     fails with {@link StoreFullException} (a repeat of a live key is always answered); {@link
 *     #NO_CAP} for none. A scope names one caller's operation, so a cap keeps one caller from
 *     filling the store for everyone. Concurrent claims may pass it by their number. The use of an
 *     issued token ({@code requireIssued}) is never refused: the token counted when issued.
 */
public record ClaimRequest(
    IdempotencyKey key,
    Fingerprint fingerprint,
    Duration lease,
    boolean requireIssued,
    int scopeCap) {

  /** The cap of a claim that has none. */
  public static final int NO_CAP = Integer.MAX_VALUE;

  public ClaimRequest {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(fingerprint, "fingerprint");
    Objects.requireNonNull(lease, "lease");
    if (lease.isNegative() || lease.isZero()) {
      throw new IllegalArgumentException("lease must be positive, was " + lease);
    }
    if (scopeCap < 1) {
      throw new IllegalArgumentException("scopeCap must be at least 1, was " + scopeCap);
    }
  }

  /** A claim without a cap on its scope. */
  public ClaimRequest(
      IdempotencyKey key, Fingerprint fingerprint, Duration lease, boolean requireIssued) {
    this(key, fingerprint, lease, requireIssued, NO_CAP);
  }

  /** A plain claim (no token required, no cap). */
  public static ClaimRequest of(IdempotencyKey key, Fingerprint fingerprint, Duration lease) {
    return new ClaimRequest(key, fingerprint, lease, false);
  }

  /** True when the scope has a cap. */
  public boolean capped() {
    return scopeCap != NO_CAP;
  }
}
