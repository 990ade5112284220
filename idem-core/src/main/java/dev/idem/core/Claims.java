package dev.idem.core;

import dev.idem.core.internal.DuplicateWaiter;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The engine's claim: the store's answer, waiting under WAIT, and the store failing at claim. */
final class Claims {

  // under the engine's name, where the fail-open warning has always been logged
  private static final Logger log = LoggerFactory.getLogger(Idempotency.class);

  private final IdempotencyStore store;
  private final DuplicateWaiter waiter;
  private final BiConsumer<IdempotencyKey, ExecutionOutcome> report;

  Claims(
      IdempotencyStore store,
      DuplicateWaiter waiter,
      BiConsumer<IdempotencyKey, ExecutionOutcome> report) {
    this.store = store;
    this.waiter = waiter;
    this.report = report;
  }

  /**
   * Claims the key; under WAIT, a claim that finds the key in progress waits to be woken and claims
   * again, until the config's limit.
   *
   * @return the store's answer, or null when the store failed and the config fails open
   * @throws IdempotencyStoreException the store failed and the config fails closed
   */
  ClaimResult claim(ClaimRequest request, IdempotencyConfig config) {
    boolean waits = config.inProgressPolicy() == InProgressPolicy.WAIT;
    long deadline = System.nanoTime() + config.maxWait().toNanos();
    for (int round = 0; ; round++) {
      try (DuplicateWaiter.Ticket ticket =
          waits ? waiter.subscribe(request.key(), config.lease()) : null) {
        ClaimResult result = store.claim(request);
        long remaining = deadline - System.nanoTime();
        if (result instanceof ClaimResult.InProgress && waits && remaining > 0) {
          ticket.await(remaining, round);
          continue;
        }
        return result;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw inProgress(request, config);
      } catch (RuntimeException e) {
        if (e instanceof IdempotencyException && !(e instanceof IdempotencyStoreException)) {
          throw e;
        }
        storeFailedAtClaim(request, config, e);
        return null;
      }
    }
  }

  /** The refusal of a duplicate in flight, reported. */
  RequestInProgressException inProgress(ClaimRequest request, IdempotencyConfig config) {
    report.accept(request.key(), ExecutionOutcome.IN_PROGRESS);
    return new RequestInProgressException(request.key(), config.retryAfter());
  }

  /** Reports a store that failed at claim; throws unless the config fails open. */
  private void storeFailedAtClaim(
      ClaimRequest request, IdempotencyConfig config, RuntimeException failure) {
    report.accept(request.key(), ExecutionOutcome.STORE_ERROR);
    if (!config.failOpen()) {
      throw failure instanceof IdempotencyStoreException s
          ? s
          : new IdempotencyStoreException("idempotency store failed at claim", failure);
    }
    log.warn("store failed; running {} without deduplication (fail open)", request.key(), failure);
  }
}
