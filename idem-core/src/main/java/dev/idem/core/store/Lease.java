package dev.idem.core.store;

import dev.idem.core.IdempotencyKey;
import java.time.Instant;
import java.util.Objects;

/**
 * The right to run the work of one key, handed out by a successful claim.
 *
 * <p>{@code complete}, {@code release} and {@code renew} succeed only while both the fence and the
 * owner match the stored record, so an owner whose lease expired and was taken over can never
 * overwrite the new owner's result. The fence is handed to the work as well, so that it can guard
 * its own writes ({@code ... WHERE last_fence < :fence}).
 *
 * @param key the key this lease is for
 * @param fence grows by one at every successful claim of the key
 * @param owner a random token unique to this claim
 * @param until when the lease ends unless renewed, by the store's clock
 */
public record Lease(IdempotencyKey key, long fence, String owner, Instant until) {

  public Lease {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(until, "until");
    if (fence < 1) {
      throw new IllegalArgumentException("fence starts at 1, was " + fence);
    }
  }

  /** The same lease with another end. */
  public Lease withUntil(Instant newUntil) {
    return new Lease(key, fence, owner, newUntil);
  }
}
