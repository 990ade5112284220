package dev.idem.core;

import java.time.Duration;
import java.util.Objects;

/**
 * What a caller asks of {@link IdempotencyStore#claim}.
 *
 * @param key the key to claim
 * @param fingerprint the fingerprint of this request
 * @param lease how long the claim holds before another caller may take it over
 * @param requireIssued true for token use: only an ISSUED record (or an in-progress one whose lease
 *     ended, or a completed one) may be claimed, an absent one yields {@link
 *     ClaimResult.UnknownToken}
 */
public record ClaimRequest(
    IdempotencyKey key, Fingerprint fingerprint, Duration lease, boolean requireIssued) {

  public ClaimRequest {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(fingerprint, "fingerprint");
    Objects.requireNonNull(lease, "lease");
    if (lease.isNegative() || lease.isZero()) {
      throw new IllegalArgumentException("lease must be positive, was " + lease);
    }
  }

  /** A plain claim (no token required). */
  public static ClaimRequest of(IdempotencyKey key, Fingerprint fingerprint, Duration lease) {
    return new ClaimRequest(key, fingerprint, lease, false);
  }
}
