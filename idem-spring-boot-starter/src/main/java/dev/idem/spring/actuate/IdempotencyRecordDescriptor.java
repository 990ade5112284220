package dev.idem.spring.actuate;

import dev.idem.core.Fingerprint;
import dev.idem.core.store.IdempotencyRecord;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordState;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * What the {@code idempotency} endpoint shows of a record: everything an operator needs to judge
 * it, never the stored body, which may hold another caller's data.
 *
 * @param scope the key's scope, such as {@code POST /orders|alice}
 * @param key the key's value
 * @param state ISSUED, IN_PROGRESS or COMPLETED
 * @param fence the fence of the latest claim (0 for a token never used); a write may name it
 * @param leaseUntil when the owner's lease ends (IN_PROGRESS only)
 * @param expiresAt when the record ends by itself
 * @param token whether the record began as a server-issued token
 * @param fingerprint the SHA-256 (hex) of the request that claimed it; null when none was taken
 * @param outcome how the work ended (COMPLETED only)
 * @param storedBytes the size of the stored body (COMPLETED only)
 * @param steps the key's steps that have a record, in the order of their names: those of the
 *     application's step methods ({@code @Idempotent} without a key), each call in a run ({@code
 *     name}, {@code name#2}, ...); steps made in code ({@code ctx.step}) are not listed
 */
public record IdempotencyRecordDescriptor(
    String scope,
    String key,
    RecordState state,
    long fence,
    @Nullable Instant leaseUntil,
    Instant expiresAt,
    boolean token,
    @Nullable String fingerprint,
    Outcome.@Nullable Kind outcome,
    @Nullable Integer storedBytes,
    List<StepDescriptor> steps)
    implements OperationResponseBody {

  public IdempotencyRecordDescriptor {
    steps = List.copyOf(steps);
  }

  /** The description of {@code record}, its body left out, without its steps. */
  public static IdempotencyRecordDescriptor of(IdempotencyRecord record) {
    return of(record, List.of());
  }

  /** The description of {@code record} and its {@code steps}, the bodies left out. */
  public static IdempotencyRecordDescriptor of(
      IdempotencyRecord record, List<StepDescriptor> steps) {
    Outcome outcome = record.outcome();
    Fingerprint fingerprint = record.fingerprint();
    return new IdempotencyRecordDescriptor(
        record.key().scope(),
        record.key().value(),
        record.state(),
        record.fence(),
        record.leaseUntil(),
        record.expiresAt(),
        record.token(),
        fingerprint.equals(Fingerprint.NONE) ? null : fingerprint.value(),
        outcome == null ? null : outcome.kind(),
        outcome == null ? null : outcome.payload().length,
        steps);
  }
}
