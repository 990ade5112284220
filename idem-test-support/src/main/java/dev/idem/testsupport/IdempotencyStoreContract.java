package dev.idem.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.OutcomeTooLargeException;
import dev.idem.core.StoreFullException;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.IdempotencyRecord;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordState;
import dev.idem.core.store.StoreCapability;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The rules of {@link dev.idem.core.store.IdempotencyStore}, checked one transition at a time,
 * after the claim rules of {@link ClaimRulesContract}, the operator's evictions of {@link
 * EvictionContract} and the step records of {@link StepRecordsContract}. Every backend extends this
 * class (directly or through {@code @Nested} variants) and supplies its store.
 *
 * <p>Longer than 400 lines because a suite is one type that a backend extends; each test in it is
 * short and stands alone.
 */
public abstract class IdempotencyStoreContract extends StepRecordsContract {

  private static final Duration RETENTION = Duration.ofHours(1);

  @Test
  void replaysTheStoredOutcomeToARepeat() {
    IdempotencyKey key = newKey();
    Lease lease = claimOrFail(key, fingerprint("a"), longLease());
    assertThat(complete(lease, Outcome.success(bytes("receipt-1")), RETENTION)).isTrue();

    ClaimResult repeat = claim(key, fingerprint("a"), longLease());
    assertThat(repeat).isInstanceOf(ClaimResult.Completed.class);
    IdempotencyRecord record = ((ClaimResult.Completed) repeat).record();
    assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
    assertThat(record.outcome()).isEqualTo(Outcome.success(bytes("receipt-1")));
    assertThat(record.fence()).isEqualTo(lease.fence());
  }

  @Test
  void keepsATerminalFailureAsAFailure() {
    IdempotencyKey key = newKey();
    Lease lease = claimOrFail(key, fingerprint("a"), longLease());
    assertThat(complete(lease, Outcome.failure(bytes("declined")), RETENTION)).isTrue();
    Outcome stored = outcomeOf(store().find(key).orElseThrow());
    assertThat(stored).isEqualTo(Outcome.failure(bytes("declined")));
  }

  @Test
  void keepsTheMarkOfAnUnstoredResultAndReplaysIt() {
    IdempotencyKey key = newKey();
    Lease lease = claimOrFail(key, fingerprint("a"), longLease());
    Outcome mark = Outcome.unstored(new OutcomeTooLargeException(2_000_000, 1_048_576));
    assertThat(complete(lease, mark, RETENTION)).isTrue();
    assertThat(outcomeOf(store().find(key).orElseThrow())).isEqualTo(mark);
    ClaimResult repeat = claim(ClaimRequest.of(key, fingerprint("a"), longLease()));
    assertThat(repeat).isInstanceOf(ClaimResult.Completed.class);
    assertThat(((ClaimResult.Completed) repeat).record().outcome()).isEqualTo(mark);
  }

  @Test
  void completesOnlyOnce() {
    IdempotencyKey key = newKey();
    Lease lease = claimOrFail(key, fingerprint("a"), longLease());
    assertThat(complete(lease, Outcome.success(bytes("first")), RETENTION)).isTrue();
    assertThat(complete(lease, Outcome.success(bytes("second")), RETENTION)).isFalse();
    assertThat(outcomeOf(store().find(key).orElseThrow()).payload()).isEqualTo(bytes("first"));
  }

  @Test
  void releaseFreesTheKeyForARetry() {
    IdempotencyKey key = newKey();
    Lease lease = claimOrFail(key, fingerprint("a"), longLease());
    assertThat(release(lease)).isTrue();
    assertThat(store().find(key)).isEmpty();
    assertThat(release(lease)).as("second release").isFalse();
    Lease retry = claimOrFail(key, fingerprint("b"), longLease());
    assertThat(retry.owner()).isNotEqualTo(lease.owner());
  }

  @Test
  void anOwnerWhoseRecordWasReleasedAndReclaimedCannotTouchTheNewLease() {
    IdempotencyKey key = newKey();
    Lease old = claimOrFail(key, fingerprint("a"), longLease());
    release(old);
    Lease current = claimOrFail(key, fingerprint("a"), longLease());

    assertThat(complete(old, Outcome.success(bytes("stale")), RETENTION)).isFalse();
    assertThat(store().renew(old, longLease())).isEmpty();
    assertThat(release(old)).isFalse();

    assertThat(store().find(key).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
    assertThat(complete(current, Outcome.success(bytes("fresh")), RETENTION)).isTrue();
    assertThat(outcomeOf(store().find(key).orElseThrow()).payload()).isEqualTo(bytes("fresh"));
  }

  @Test
  void everyFenceOfAKeyIsGreaterThanAllBeforeItAcrossTakeoverReleaseExpiryAndPurge() {
    IdempotencyKey key = newKey();
    Lease x = claimOrFail(key, fingerprint("a"), shortLease()); // X claims and stalls
    passBeyond(shortLease());
    Lease a = claimOrFail(key, fingerprint("a"), shortLease()); // A takes over and stalls
    passBeyond(shortLease());
    Lease b = claimOrFail(key, fingerprint("a"), longLease()); // B takes over
    assertThat(release(b)).isTrue(); // and gives the key up
    Lease c = claimOrFail(key, fingerprint("a"), longLease()); // C claims
    assertThat(complete(c, Outcome.success(bytes("c")), shortLease())).isTrue();
    passBeyond(shortLease()); // C's record expires
    store().purgeExpired(10_000); // and is purged
    Lease d = claimOrFail(key, fingerprint("a"), longLease());
    // a stale owner guarding its writes with "WHERE last_fence < :fence" can never pass
    assertThat(List.of(x.fence(), a.fence(), b.fence(), c.fence(), d.fence()))
        .isSorted()
        .doesNotHaveDuplicates();
  }

  @Test
  void aStaleOwnerCannotCompleteReleaseOrRenewAfterATakeover() {
    IdempotencyKey key = newKey();
    Lease stale = claimOrFail(key, fingerprint("a"), shortLease());
    passBeyond(shortLease());
    Lease current = claimOrFail(key, fingerprint("a"), longLease());

    assertThat(complete(stale, Outcome.success(bytes("stale")), RETENTION)).isFalse();
    assertThat(release(stale)).isFalse();
    assertThat(store().renew(stale, longLease())).isEmpty();

    IdempotencyRecord record = store().find(key).orElseThrow();
    assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS);
    assertThat(record.fence()).isEqualTo(current.fence());
    assertThat(complete(current, Outcome.success(bytes("mine")), RETENTION)).isTrue();
  }

  @Test
  void anOwnerMayStillCompleteAfterItsLeaseEndedIfNobodyTookOver() {
    IdempotencyKey key = newKey();
    Lease lease = claimOrFail(key, fingerprint("a"), shortLease());
    passBeyond(shortLease());
    assertThat(complete(lease, Outcome.success(bytes("late")), RETENTION)).isTrue();
    assertThat(claim(key, fingerprint("a"), longLease())).isInstanceOf(ClaimResult.Completed.class);
  }

  @Test
  void renewalKeepsTheLeaseAlive() {
    IdempotencyKey key = newKey();
    Lease lease = claimOrFail(key, fingerprint("a"), shortLease());
    Optional<Lease> renewed = store().renew(lease, longLease());
    assertThat(renewed).isPresent();
    assertThat(renewed.get().fence()).isEqualTo(lease.fence());
    assertThat(renewed.get().until()).isAfter(lease.until());
    passBeyond(shortLease());
    assertThat(claim(key, fingerprint("a"), longLease()))
        .isInstanceOf(ClaimResult.InProgress.class);
    assertThat(complete(renewed.get(), Outcome.success(bytes("r")), RETENTION)).isTrue();
  }

  @Test
  void aCompletedRecordIsForgottenAfterItsRetention() {
    IdempotencyKey key = newKey();
    Lease lease = claimOrFail(key, fingerprint("a"), longLease());
    complete(lease, Outcome.success(bytes("r")), shortLease());
    assertThat(store().find(key)).isPresent();
    passBeyond(shortLease());
    assertThat(store().find(key)).isEmpty();
    assertThat(claim(key, fingerprint("other"), longLease()))
        .isInstanceOf(ClaimResult.Claimed.class);
  }

  @Test
  void purgeRemovesExpiredRecordsAndKeepsLiveOnes() {
    IdempotencyKey expiring = newKey();
    IdempotencyKey live = newKey();
    complete(
        claimOrFail(expiring, fingerprint("a"), longLease()),
        Outcome.success(bytes("x")),
        shortLease());
    complete(
        claimOrFail(live, fingerprint("a"), longLease()), Outcome.success(bytes("y")), RETENTION);
    passBeyond(shortLease());
    int purged = store().purgeExpired(10_000);
    if (purgesByItself()) {
      assertThat(purged).isGreaterThanOrEqualTo(0);
    } else {
      assertThat(purged).as("records purged, the expired one among them").isPositive();
    }
    assertThat(store().find(expiring)).isEmpty();
    assertThat(outcomeOf(store().find(live).orElseThrow()).payload()).isEqualTo(bytes("y"));
  }

  @Test
  void aScopeAtItsCapRefusesNewKeysWhileRepeatsAndOtherScopesGoOn() {
    String mallory = scope + ":mallory";
    List<Lease> held = new java.util.ArrayList<>();
    for (int i = 0; i < 3; i++) {
      held.add(claimCappedOrFail(IdempotencyKey.of(mallory, "k" + i), 3));
    }
    complete(held.get(0), Outcome.success(bytes("done")), RETENTION);
    IdempotencyKey fourth = IdempotencyKey.of(mallory, "k3");
    assertThatThrownBy(() -> claim(capped(fourth, 3)))
        .isInstanceOf(StoreFullException.class)
        .hasMessageContaining(mallory);
    assertThat(store().find(fourth)).as("nothing kept of the refused key").isEmpty();
    assertThat(claim(capped(IdempotencyKey.of(mallory, "k0"), 3)))
        .as("a repeat of a completed key is still answered")
        .isInstanceOf(ClaimResult.Completed.class);
    assertThat(claim(capped(IdempotencyKey.of(mallory, "k1"), 3)))
        .as("a repeat of a key in progress is still answered")
        .isInstanceOf(ClaimResult.InProgress.class);
    claimCappedOrFail(IdempotencyKey.of(scope + ":alice", "k0"), 3);
    assertThat(claim(ClaimRequest.of(fourth, fingerprint("a"), longLease())))
        .as("a claim without a cap is not refused")
        .isInstanceOf(ClaimResult.Claimed.class);
  }

  @Test
  void aReleasedOrExpiredRecordNoLongerCountsAgainstTheCap() {
    String caller = scope + ":bursty";
    Lease released = claimCappedOrFail(IdempotencyKey.of(caller, "released"), 2);
    Lease expiring = claimCappedOrFail(IdempotencyKey.of(caller, "expiring"), 2);
    complete(expiring, Outcome.success(bytes("x")), shortLease());
    assertThatThrownBy(() -> claim(capped(IdempotencyKey.of(caller, "third"), 2)))
        .isInstanceOf(StoreFullException.class);
    assertThat(release(released)).isTrue();
    claimCappedOrFail(IdempotencyKey.of(caller, "third"), 2);
    passBeyond(shortLease());
    claimCappedOrFail(IdempotencyKey.of(caller, "fourth"), 2);
    assertThatThrownBy(() -> claim(capped(IdempotencyKey.of(caller, "fifth"), 2)))
        .isInstanceOf(StoreFullException.class);
  }

  @Test
  void aClaimThatTakesOverItsOwnEndedLeaseInAFullScopeIsNotRefused() {
    String caller = scope + ":crashed";
    IdempotencyKey key = IdempotencyKey.of(caller, "k0");
    ClaimRequest shortCapped = new ClaimRequest(key, fingerprint("a"), shortLease(), false, 1);
    assertThat(claim(shortCapped)).isInstanceOf(ClaimResult.Claimed.class);
    passBeyond(shortLease());
    assertThat(claim(shortCapped))
        .as("the record whose lease ended is the scope's only one: it counts once")
        .isInstanceOf(ClaimResult.Claimed.class);
    assertThatThrownBy(() -> claim(capped(IdempotencyKey.of(caller, "k1"), 1)))
        .isInstanceOf(StoreFullException.class);
  }

  @Test
  void aCompletedRecordCountsForItsRetentionNotForItsClaimsLease() {
    String caller = scope + ":kept";
    IdempotencyKey key = IdempotencyKey.of(caller, "k0");
    ClaimResult first = claim(new ClaimRequest(key, fingerprint("a"), shortLease(), false, 1));
    Lease lease = ((ClaimResult.Claimed) first).lease();
    assertThat(complete(lease, Outcome.success(bytes("kept")), RETENTION)).isTrue();
    passBeyond(shortLease().multipliedBy(2));
    assertThatThrownBy(() -> claim(capped(IdempotencyKey.of(caller, "k1"), 1)))
        .as("the answer is kept for an hour, and counts as long")
        .isInstanceOf(StoreFullException.class);
  }

  @Test
  void issuingPastTheCapIsRefusedAndIssuedTokensCount() {
    String caller = scope + ":token|mallory";
    assertThat(store().issue(IdempotencyKey.of(caller, "t0"), longLease(), 2)).isTrue();
    assertThat(store().issue(IdempotencyKey.of(caller, "t1"), longLease(), 2)).isTrue();
    assertThatThrownBy(() -> store().issue(IdempotencyKey.of(caller, "t2"), longLease(), 2))
        .isInstanceOf(StoreFullException.class);
    assertThat(store().find(IdempotencyKey.of(caller, "t2"))).isEmpty();
    assertThatThrownBy(() -> claim(capped(IdempotencyKey.of(caller, "k"), 2)))
        .as("issued tokens count as live records of the scope")
        .isInstanceOf(StoreFullException.class);
    assertThat(store().issue(IdempotencyKey.of(scope + ":token|alice", "t0"), longLease(), 2))
        .isTrue();
  }

  @Test
  void keysWithTheSameValueInOtherScopesAreIndependent() {
    String value = "shared-" + System.nanoTime();
    IdempotencyKey alice = IdempotencyKey.of(scope + ":alice", value);
    IdempotencyKey bob = IdempotencyKey.of(scope + ":bob", value);
    Lease a = claimOrFail(alice, fingerprint("a"), longLease());
    complete(a, Outcome.success(bytes("alice")), RETENTION);
    Lease b = claimOrFail(bob, fingerprint("b"), longLease());
    assertThat(claim(bob, fingerprint("b"), longLease()))
        .isInstanceOf(ClaimResult.InProgress.class);
    assertThat(claim(alice, fingerprint("a"), longLease()))
        .isInstanceOf(ClaimResult.Completed.class);
    assertThat(complete(b, Outcome.success(bytes("bob")), RETENTION)).isTrue();
  }

  @Test
  void keyContentIsDataNeverSyntax() {
    String[] scopes = {
      scope + ":' OR 1=1; DROP TABLE idem_records; --",
      scope + ":redis.call('FLUSHALL')",
      scope + ":{tag}:\"quoted\" \\ ünïcödé 字",
    };
    for (String s : scopes) {
      IdempotencyKey key = IdempotencyKey.of(s, "k'\";--{}*?[]");
      Lease lease = claimOrFail(key, fingerprint(s), longLease());
      complete(lease, Outcome.success(bytes(s)), RETENTION);
      IdempotencyRecord record = store().find(key).orElseThrow();
      assertThat(record.key()).isEqualTo(key);
      assertThat(outcomeOf(record).payload()).isEqualTo(bytes(s));
    }
  }

  @Test
  void storesAnyOutcomeBytesExactly() {
    byte[][] payloads = {new byte[0], new byte[256], randomBytes(64 * 1024)};
    for (int i = 0; i < 256; i++) {
      payloads[1][i] = (byte) i;
    }
    for (byte[] payload : payloads) {
      IdempotencyKey key = newKey();
      complete(
          claimOrFail(key, fingerprint("a"), longLease()), Outcome.success(payload), RETENTION);
      ClaimResult repeat = claim(key, fingerprint("a"), longLease());
      assertThat(outcomeOf(((ClaimResult.Completed) repeat).record()).payload()).isEqualTo(payload);
    }
  }

  @Test
  void racingCallersWithCrashesGetOneEffectPerKeyAndOneAnswer() throws Exception {
    ConcurrencyFuzzer fuzzer =
        new ConcurrencyFuzzer(
            store(),
            fuzzThreads(),
            fuzzKeys(),
            fuzzAttempts(),
            0.02,
            shortLease(),
            () -> time().pass(shortLease().dividedBy(8)));
    ConcurrencyFuzzer.Report report = fuzzer.run(scope + ":fuzz", Duration.ofMinutes(2));
    assertThat(report.keysWithoutExactlyOneEffect()).isEmpty();
    assertThat(report.keysWithDifferingAnswers()).isEmpty();
    assertThat(report.crashes()).as("crashes simulated").isPositive();
    assertThat(report.calls()).isGreaterThanOrEqualTo(fuzzThreads() * fuzzKeys() * fuzzAttempts());
  }

  @Test
  void aRetryAfterTheClaimantWasKilledMidWorkCompletesExactlyOnce() throws Exception {
    assumeCapability(StoreCapability.SHARED_BETWEEN_PROCESSES);
    IdempotencyKey key = newKey();
    long childFence;
    try (ChildJvm child =
        ChildJvm.start(
            CrashingClaimant.class,
            crashStoreFactory().getName(),
            key.scope(),
            key.value(),
            Long.toString(shortLease().toMillis()))) {
      String line = child.awaitLine("claimed ", Duration.ofSeconds(60));
      childFence = Long.parseLong(line.substring("claimed ".length()).trim());
      assertThat(child.kill()).as("exit code after SIGKILL").isEqualTo(137);
    }
    assertThat(claim(key, Fingerprint.NONE, longLease()))
        .isInstanceOf(ClaimResult.InProgress.class);
    passBeyond(shortLease());
    Lease retry = claimOrFail(key, Fingerprint.NONE, longLease());
    assertThat(retry.fence()).isGreaterThan(childFence);
    assertThat(complete(retry, Outcome.success(bytes("once")), RETENTION)).isTrue();
    assertThat(claim(key, Fingerprint.NONE, longLease())).isInstanceOf(ClaimResult.Completed.class);
  }

  /**
   * True for a store that expires records by itself (Redis), whose {@code purgeExpired} may find
   * nothing left to delete; false for one whose records stay until purged.
   */
  protected boolean purgesByItself() {
    return false;
  }

  /** Threads in the fuzzer; 16 unless a slow backend needs fewer. */
  protected int fuzzThreads() {
    return 16;
  }

  /** Keys in the fuzzer. */
  protected int fuzzKeys() {
    return 200;
  }

  /** How often each thread asks for each key. */
  protected int fuzzAttempts() {
    return 10;
  }

  /**
   * For stores with {@link StoreCapability#SHARED_BETWEEN_PROCESSES}: a class with a public
   * no-argument constructor that builds, in a child JVM, a store on the same storage.
   */
  protected Class<? extends Supplier<IdempotencyStore>> crashStoreFactory() {
    throw new IllegalStateException("a shared store must name its crash store factory");
  }

  @Test
  void findsNothingForAnUnknownKey() {
    assertThat(store().find(newKey())).isEmpty();
  }

  private static byte[] randomBytes(int n) {
    byte[] b = new byte[n];
    new Random(42).nextBytes(b);
    return b;
  }
}
