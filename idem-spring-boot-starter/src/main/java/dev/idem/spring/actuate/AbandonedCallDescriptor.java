package dev.idem.spring.actuate;

import dev.idem.core.resume.ResumeEntry;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * A call of a resumable method that the completer abandoned, as the {@code idempotency} endpoint
 * shows it: its input is left out (it may hold what only the method should see), its size kept.
 *
 * @param operation the method's operation
 * @param id the call's id within its operation, which a retry or a drop names
 * @param scope the scope of the call's key
 * @param key the call's key
 * @param attempts the completer's failed runs
 * @param inputBytes the size of the stored arguments
 */
public record AbandonedCallDescriptor(
    String operation, String id, String scope, String key, int attempts, int inputBytes)
    implements OperationResponseBody {

  static AbandonedCallDescriptor of(ResumeEntry entry) {
    return new AbandonedCallDescriptor(
        entry.operation(),
        entry.id(),
        entry.key().scope(),
        entry.key().value(),
        entry.attempts(),
        entry.input().length);
  }
}
