package dev.idem.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.StoreFullException;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.IdempotencyRecord;
import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordChangeNotifier;
import dev.idem.core.store.RecordState;
import dev.idem.core.store.StoreCapability;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * An operator's {@link dev.idem.core.store.IdempotencyStore#evict}: a stuck IN_PROGRESS record
 * released whoever owns it, a COMPLETED or ISSUED one removed, and nothing touched unless state and
 * fence are still the ones the operator read. {@link IdempotencyStoreContract} extends it, so every
 * store runs it.
 */
public abstract class EvictionContract extends ClaimRulesContract {

  private static final Duration RETENTION = Duration.ofHours(1);

  @Test
  void anOperatorReleasesAnInProgressRecordAndItsOwnerCanNoLongerTouchIt() {
    IdempotencyKey key = newKey();
    Lease stuck = claimOrFail(key, fingerprint("a"), longLease());

    assertThat(store().evict(key, RecordState.IN_PROGRESS, stuck.fence())).isTrue();

    assertThat(store().find(key)).isEmpty();
    assertThat(complete(stuck, Outcome.success(bytes("late")), RETENTION)).isFalse();
    assertThat(store().renew(stuck, longLease())).isEmpty();
    assertThat(release(stuck)).isFalse();
    Lease retry = claimOrFail(key, fingerprint("b"), longLease());
    assertThat(retry.fence()).isGreaterThan(stuck.fence());
    assertThat(store().evict(key, RecordState.IN_PROGRESS, stuck.fence()))
        .as("the new claim is not the record the operator read")
        .isFalse();
    assertThat(store().find(key).orElseThrow().fence()).isEqualTo(retry.fence());
  }

  @Test
  void anOperatorEvictsACompletedRecordAndTheNextClaimRunsTheWorkAgain() {
    IdempotencyKey key = newKey();
    Lease lease = claimOrFail(key, fingerprint("a"), longLease());
    assertThat(complete(lease, Outcome.success(bytes("stale answer")), RETENTION)).isTrue();

    assertThat(store().evict(key, RecordState.COMPLETED, lease.fence())).isTrue();

    assertThat(store().find(key)).isEmpty();
    Lease again = claimOrFail(key, fingerprint("another request"), longLease());
    assertThat(again.fence()).isGreaterThan(lease.fence());
    assertThat(complete(again, Outcome.success(bytes("fresh")), RETENTION)).isTrue();
    assertThat(outcomeOf(store().find(key).orElseThrow()).payload()).isEqualTo(bytes("fresh"));
  }

  @Test
  void evictionLeavesARecordInAnotherStateOrWithAnotherFenceAsItIs() {
    IdempotencyKey key = newKey();
    Lease lease = claimOrFail(key, fingerprint("a"), longLease());

    assertThat(store().evict(key, RecordState.COMPLETED, lease.fence())).isFalse();
    assertThat(store().evict(key, RecordState.ISSUED, lease.fence())).isFalse();
    assertThat(store().evict(key, RecordState.IN_PROGRESS, lease.fence() + 1)).isFalse();
    assertThat(store().evict(key, RecordState.IN_PROGRESS, lease.fence() - 1)).isFalse();
    IdempotencyRecord held = store().find(key).orElseThrow();
    assertThat(held.state()).isEqualTo(RecordState.IN_PROGRESS);
    assertThat(held.fence()).isEqualTo(lease.fence());

    assertThat(complete(lease, Outcome.success(bytes("kept")), RETENTION)).isTrue();
    assertThat(store().evict(key, RecordState.IN_PROGRESS, lease.fence())).isFalse();
    assertThat(store().evict(key, RecordState.COMPLETED, lease.fence() + 1)).isFalse();
    assertThat(outcomeOf(store().find(key).orElseThrow()).payload()).isEqualTo(bytes("kept"));
    assertThat(claim(key, fingerprint("a"), longLease())).isInstanceOf(ClaimResult.Completed.class);
  }

  @Test
  void evictionFindsNothingToDoForAnAbsentOrExpiredRecord() {
    IdempotencyKey absent = newKey();
    assertThat(store().evict(absent, RecordState.COMPLETED, 1)).isFalse();
    assertThat(store().evict(absent, RecordState.IN_PROGRESS, 1)).isFalse();
    assertThat(store().find(absent)).isEmpty();

    IdempotencyKey expired = newKey();
    Lease lease = claimOrFail(expired, fingerprint("a"), longLease());
    complete(lease, Outcome.success(bytes("r")), shortLease());
    passBeyond(shortLease());
    assertThat(store().evict(expired, RecordState.COMPLETED, lease.fence())).isFalse();
    assertThat(claimOrFail(expired, fingerprint("a"), longLease()).fence())
        .isGreaterThan(lease.fence());
  }

  @Test
  void aReleasedTokenGoesBackToIssuedWhileAnEvictedOneIsGone() {
    IdempotencyKey key = newKey();
    assertThat(store().issue(key, longLease())).isTrue();
    Lease first = claimToken(key);

    assertThat(store().evict(key, RecordState.IN_PROGRESS, first.fence())).isTrue();
    IdempotencyRecord issued = store().find(key).orElseThrow();
    assertThat(issued.state()).isEqualTo(RecordState.ISSUED);
    assertThat(issued.token()).isTrue();

    Lease second = claimToken(key);
    assertThat(second.fence()).isGreaterThan(first.fence());
    complete(second, Outcome.success(bytes("used")), RETENTION);
    assertThat(store().evict(key, RecordState.COMPLETED, second.fence())).isTrue();
    assertThat(store().find(key)).isEmpty();
    assertThat(claim(tokenClaim(key))).isInstanceOf(ClaimResult.UnknownToken.class);

    IdempotencyKey unused = newKey();
    store().issue(unused, longLease());
    long fence = store().find(unused).orElseThrow().fence();
    assertThat(store().evict(unused, RecordState.ISSUED, fence)).isTrue();
    assertThat(claim(tokenClaim(unused))).isInstanceOf(ClaimResult.UnknownToken.class);
  }

  @Test
  void anEvictedRecordNoLongerCountsAgainstItsScopesCap() {
    String caller = scope + ":stuck";
    Lease stuck = claimCappedOrFail(IdempotencyKey.of(caller, "k0"), 1);
    IdempotencyKey next = IdempotencyKey.of(caller, "k1");
    assertThatThrownBy(() -> claim(capped(next, 1))).isInstanceOf(StoreFullException.class);

    assertThat(store().evict(stuck.key(), RecordState.IN_PROGRESS, stuck.fence())).isTrue();
    Lease done = claimCappedOrFail(next, 1);
    complete(done, Outcome.success(bytes("d")), RETENTION);
    IdempotencyKey third = IdempotencyKey.of(caller, "k2");
    assertThatThrownBy(() -> claim(capped(third, 1))).isInstanceOf(StoreFullException.class);

    assertThat(store().evict(next, RecordState.COMPLETED, done.fence())).isTrue();
    claimCappedOrFail(third, 1);
  }

  @Test
  void anOperatorsReleaseWakesTheKeysWaiters() throws Exception {
    assumeCapability(StoreCapability.CHANGE_NOTIFICATION);
    IdempotencyKey key = newKey();
    Lease stuck = claimOrFail(key, fingerprint("a"), longLease());
    CountDownLatch woken = new CountDownLatch(1);
    try (RecordChangeNotifier.Subscription subscription = store().onChange(key, woken::countDown)) {
      // a duplicate that finds the key in progress is what marks it as waited for
      assertThat(claim(key, fingerprint("a"), longLease()))
          .isInstanceOf(ClaimResult.InProgress.class);
      assertThat(store().evict(key, RecordState.IN_PROGRESS, stuck.fence())).isTrue();
      assertThat(woken.await(10, TimeUnit.SECONDS)).as("waiter woken").isTrue();
    }
  }

  @Test
  void anOwnersCompletionAndAnOperatorsReleaseOfTheSameClaimNeverBothSucceed() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int i = 0; i < 20; i++) {
        IdempotencyKey key = newKey();
        Lease lease = claimOrFail(key, fingerprint("a"), longLease());
        CyclicBarrier start = new CyclicBarrier(2);
        Future<Boolean> completed =
            pool.submit(
                () -> {
                  start.await();
                  return complete(lease, Outcome.success(bytes("r")), RETENTION);
                });
        Future<Boolean> released =
            pool.submit(
                () -> {
                  start.await();
                  return store().evict(key, RecordState.IN_PROGRESS, lease.fence());
                });
        boolean won = completed.get(30, TimeUnit.SECONDS);
        assertThat(released.get(30, TimeUnit.SECONDS)).as("released, round " + i).isNotEqualTo(won);
        assertThat(store().find(key).map(IdempotencyRecord::state))
            .as("record after round " + i)
            .isEqualTo(won ? Optional.of(RecordState.COMPLETED) : Optional.empty());
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private Lease claimToken(IdempotencyKey key) {
    ClaimResult result = claim(tokenClaim(key));
    assertThat(result).isInstanceOf(ClaimResult.Claimed.class);
    return ((ClaimResult.Claimed) result).lease();
  }

  private ClaimRequest tokenClaim(IdempotencyKey key) {
    return new ClaimRequest(key, fingerprint("a"), longLease(), true);
  }
}
