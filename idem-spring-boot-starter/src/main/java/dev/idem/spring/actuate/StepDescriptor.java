package dev.idem.spring.actuate;

import dev.idem.core.store.IdempotencyRecord;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordState;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * What the {@code idempotency} endpoint shows of one step of a key: its name and its record, the
 * stored body left out.
 *
 * @param name the step's name, such as {@code CardGateway.charge} or {@code CardGateway.charge#2}
 * @param state IN_PROGRESS (a run holds it, or one died in it) or COMPLETED
 * @param fence the fence of the step's latest claim
 * @param leaseUntil when the run holding it loses it (IN_PROGRESS only)
 * @param expiresAt when the step's record ends by itself
 * @param outcome how the step ended (COMPLETED only)
 * @param storedBytes the size of its stored result (COMPLETED only)
 */
public record StepDescriptor(
    String name,
    RecordState state,
    long fence,
    @Nullable Instant leaseUntil,
    Instant expiresAt,
    Outcome.@Nullable Kind outcome,
    @Nullable Integer storedBytes) {

  /** The description of the step {@code name} from its record. */
  public static StepDescriptor of(String name, IdempotencyRecord record) {
    Outcome outcome = record.outcome();
    return new StepDescriptor(
        name,
        record.state(),
        record.fence(),
        record.leaseUntil(),
        record.expiresAt(),
        outcome == null ? null : outcome.kind(),
        outcome == null ? null : outcome.payload().length);
  }
}
