package dev.idem.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordState;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The records of steps ({@link IdempotencyKey#step(String)}): records of their own beside their
 * root's, kept when the root is released, and removed when an operator evicts the root. {@link
 * IdempotencyStoreContract} extends it, so every store runs it.
 */
public abstract class StepRecordsContract extends EvictionContract {

  private static final Duration RETENTION = Duration.ofHours(1);

  @Test
  void aStepIsARecordOfItsOwnThatOutlivesTheReleaseOfItsRoot() {
    IdempotencyKey root = newKey();
    Lease running = claimOrFail(root, fingerprint("order"), longLease());
    Lease charge = claimOrFail(root.step("charge"), fingerprint("card"), longLease());
    assertThat(complete(charge, Outcome.success(bytes("charged")), RETENTION)).isTrue();

    assertThat(release(running)).isTrue();

    assertThat(store().find(root)).isEmpty();
    assertThat(outcomeOf(store().find(root.step("charge")).orElseThrow()).payload())
        .isEqualTo(bytes("charged"));
    ClaimResult again = claim(root.step("charge"), fingerprint("card"), longLease());
    assertThat(again).isInstanceOf(ClaimResult.Completed.class);
    claimOrFail(root, fingerprint("order"), longLease());
  }

  @Test
  void aStepsRecordCarriesTheStepsKeyWhereverItIsRead() {
    IdempotencyKey root = newKey();
    IdempotencyKey step = root.step("charge");
    claimOrFail(root, fingerprint("order"), longLease());
    Lease charge = claimOrFail(step, fingerprint("card"), longLease());

    ClaimResult running = claim(step, fingerprint("card"), longLease());
    assertThat(complete(charge, Outcome.success(bytes("charged")), RETENTION)).isTrue();
    ClaimResult done = claim(step, fingerprint("card"), longLease());

    // a decorator that keeps records by their key must never take a step's for its root's
    assertThat(((ClaimResult.InProgress) running).record().key()).isEqualTo(step);
    assertThat(((ClaimResult.Completed) done).record().key()).isEqualTo(step);
    assertThat(store().find(step).orElseThrow().key()).isEqualTo(step);
  }

  @Test
  void aStepNeverSharesARecordWithAKeyWhoseTextLooksLikeIt() {
    IdempotencyKey root = newKey();
    IdempotencyKey lookalike = IdempotencyKey.of(root.scope(), root.value() + "#charge");
    IdempotencyKey other = IdempotencyKey.of(root.scope(), root.value() + "/charge");
    Lease step = claimOrFail(root.step("charge"), fingerprint("a"), longLease());
    assertThat(complete(step, Outcome.success(bytes("step")), RETENTION)).isTrue();

    claimOrFail(lookalike, fingerprint("b"), longLease());
    claimOrFail(other, fingerprint("c"), longLease());
    claimOrFail(root, fingerprint("d"), longLease());
    claimOrFail(root.step("charge").step("x"), fingerprint("e"), longLease());
    assertThat(store().find(root.step("charge")).orElseThrow().state())
        .isEqualTo(RecordState.COMPLETED);
  }

  @Test
  void evictingARootRemovesEveryStepOfItWhateverItsStateAndNothingElse() {
    IdempotencyKey root = newKey();
    IdempotencyKey neighbour = newKey();
    Lease running = claimOrFail(root, fingerprint("order"), longLease());
    assertThat(complete(running, Outcome.success(bytes("done")), RETENTION)).isTrue();
    Lease stock = claimOrFail(root.step("stock"), fingerprint("a"), longLease());
    assertThat(complete(stock, Outcome.success(bytes("reserved")), RETENTION)).isTrue();
    Lease nested = claimOrFail(root.step("stock").step("row"), fingerprint("a"), longLease());
    assertThat(complete(nested, Outcome.success(bytes("row")), RETENTION)).isTrue();
    Lease charge = claimOrFail(root.step("charge"), fingerprint("a"), longLease());
    Lease theirs = claimOrFail(neighbour.step("stock"), fingerprint("a"), longLease());
    assertThat(complete(theirs, Outcome.success(bytes("theirs")), RETENTION)).isTrue();
    long fence = store().find(root).orElseThrow().fence();

    assertThat(store().evict(root, RecordState.COMPLETED, fence)).isTrue();

    assertThat(store().find(root)).isEmpty();
    assertThat(store().find(root.step("stock"))).isEmpty();
    assertThat(store().find(root.step("stock").step("row"))).isEmpty();
    assertThat(store().find(root.step("charge"))).isEmpty();
    assertThat(complete(charge, Outcome.success(bytes("late")), RETENTION))
        .as("the evicted step's owner can no longer store its result")
        .isFalse();
    assertThat(store().find(neighbour.step("stock"))).isPresent();
    Lease rerun = claimOrFail(root.step("charge"), fingerprint("a"), longLease());
    assertThat(rerun.fence()).isGreaterThan(charge.fence());
  }

  @Test
  void anOperatorsReleaseOfAStuckRootKeepsItsStepsForTheRunThatTakesItOver() {
    IdempotencyKey root = newKey();
    Lease stuck = claimOrFail(root, fingerprint("order"), longLease());
    Lease charge = claimOrFail(root.step("charge"), fingerprint("card"), longLease());
    assertThat(complete(charge, Outcome.success(bytes("charged")), RETENTION)).isTrue();
    Lease ship = claimOrFail(root.step("ship"), fingerprint("parcel"), longLease());

    assertThat(store().evict(root, RecordState.IN_PROGRESS, stuck.fence())).isTrue();

    assertThat(store().find(root.step("charge")).orElseThrow().state())
        .isEqualTo(RecordState.COMPLETED);
    assertThat(store().find(root.step("ship")).orElseThrow().state())
        .isEqualTo(RecordState.IN_PROGRESS);
    assertThat(claim(root.step("charge"), fingerprint("card"), longLease()))
        .isInstanceOf(ClaimResult.Completed.class);
    assertThat(ship.owner()).isNotEmpty();
  }

  @Test
  void evictingARootLeavesTheStepsOfKeysThatDifferOnlyInCase() {
    IdempotencyKey root = IdempotencyKey.of(scope, "order-abc");
    IdempotencyKey otherValue = IdempotencyKey.of(scope, "ORDER-ABC");
    IdempotencyKey otherScope =
        IdempotencyKey.of(scope.toUpperCase(java.util.Locale.ROOT), "order-abc");
    for (IdempotencyKey other : new IdempotencyKey[] {otherValue, otherScope}) {
      Lease step = claimOrFail(other.step("charge"), fingerprint("a"), longLease());
      assertThat(complete(step, Outcome.success(bytes("theirs")), RETENTION)).isTrue();
    }
    Lease lease = claimOrFail(root, fingerprint("a"), longLease());
    assertThat(complete(lease, Outcome.success(bytes("done")), RETENTION)).isTrue();

    assertThat(store().evict(root, RecordState.COMPLETED, lease.fence())).isTrue();

    assertThat(store().find(otherValue.step("charge"))).isPresent();
    assertThat(store().find(otherScope.step("charge"))).isPresent();
  }

  @Test
  void anEvictionThatMissesItsRecordLeavesTheStepsAlone() {
    IdempotencyKey root = newKey();
    Lease running = claimOrFail(root, fingerprint("order"), longLease());
    Lease stock = claimOrFail(root.step("stock"), fingerprint("a"), longLease());
    assertThat(complete(stock, Outcome.success(bytes("reserved")), RETENTION)).isTrue();

    assertThat(store().evict(root, RecordState.COMPLETED, running.fence())).isFalse();

    assertThat(store().find(root.step("stock"))).isPresent();
  }

  @Test
  void evictingAStepLeavesItsRootAndItsSiblings() {
    IdempotencyKey root = newKey();
    claimOrFail(root, fingerprint("order"), longLease());
    Lease stock = claimOrFail(root.step("stock"), fingerprint("a"), longLease());
    assertThat(complete(stock, Outcome.success(bytes("reserved")), RETENTION)).isTrue();
    Lease charge = claimOrFail(root.step("charge"), fingerprint("a"), longLease());
    assertThat(complete(charge, Outcome.success(bytes("charged")), RETENTION)).isTrue();

    assertThat(store().evict(root.step("charge"), RecordState.COMPLETED, charge.fence())).isTrue();

    assertThat(store().find(root.step("charge"))).isEmpty();
    assertThat(store().find(root.step("stock"))).isPresent();
    assertThat(store().find(root).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
  }
}
