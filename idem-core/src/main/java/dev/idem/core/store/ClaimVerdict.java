package dev.idem.core.store;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The claim rules of {@link IdempotencyStore#claim}: what a claim does, given the record it finds.
 * It is the sequential specification of a store; every store decides by it (the in-memory store,
 * the JDBC row reader, the Redis reply reader), and the Redis claim script, which must decide on
 * the server, is checked against it by the store contract.
 */
public enum ClaimVerdict {
  /**
   * The claim takes the key, with a new fence: no live record, an issued token, or a record in
   * progress whose lease ended, claimed again with its fingerprint (its owner may have had its
   * effect, so only the same request takes it over). The record it writes keeps the token mark of
   * the one it replaces.
   */
  TAKE,
  /** A token use ({@link ClaimRequest#requireIssued()}) found no live record issued as a token. */
  UNKNOWN_TOKEN,
  /** Another claim with the same fingerprint holds the key and its lease runs. */
  IN_PROGRESS,
  /** The key completed with the same fingerprint: its outcome is the answer. */
  COMPLETED,
  /** The key is in progress (its lease running or ended) or completed with another fingerprint. */
  MISMATCH;

  /**
   * The verdict for {@code request} on {@code live}, at {@code now} by the store's clock.
   *
   * @param live the record, or null when there is none or it expired
   */
  public static ClaimVerdict of(
      @Nullable IdempotencyRecord live, ClaimRequest request, Instant now) {
    if (request.requireIssued() && !(live != null && live.token())) {
      return UNKNOWN_TOKEN;
    }
    if (live == null) {
      return TAKE;
    }
    boolean same = request.fingerprint().matches(live.fingerprint());
    return switch (live.state()) {
      case ISSUED -> TAKE;
      case IN_PROGRESS -> {
        if (!same) {
          yield MISMATCH;
        }
        yield now.isBefore(Objects.requireNonNull(live.leaseUntil())) ? IN_PROGRESS : TAKE;
      }
      case COMPLETED -> same ? COMPLETED : MISMATCH;
    };
  }

  /** The verdict that {@code result} reports. */
  public static ClaimVerdict of(ClaimResult result) {
    Objects.requireNonNull(result, "result");
    if (result instanceof ClaimResult.Claimed) {
      return TAKE;
    }
    if (result instanceof ClaimResult.UnknownToken) {
      return UNKNOWN_TOKEN;
    }
    if (result instanceof ClaimResult.InProgress) {
      return IN_PROGRESS;
    }
    return result instanceof ClaimResult.Completed ? COMPLETED : MISMATCH;
  }

  /**
   * The answer of this verdict about {@code live}; a store builds the answer of {@link #TAKE}
   * itself, from the lease it wrote.
   *
   * @param live the record, null only for {@link #UNKNOWN_TOKEN}
   * @throws IllegalStateException for {@link #TAKE}
   */
  public ClaimResult answer(@Nullable IdempotencyRecord live) {
    return switch (this) {
      case TAKE -> throw new IllegalStateException("a claim that takes the key answers its lease");
      case UNKNOWN_TOKEN -> new ClaimResult.UnknownToken();
      case IN_PROGRESS -> new ClaimResult.InProgress(Objects.requireNonNull(live, "live"));
      case COMPLETED -> new ClaimResult.Completed(Objects.requireNonNull(live, "live"));
      case MISMATCH -> new ClaimResult.Mismatch(Objects.requireNonNull(live, "live"));
    };
  }
}
