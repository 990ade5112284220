package dev.idem.testsupport;

import static dev.idem.testsupport.Stages.now;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.StoreFullException;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.ClaimVerdict;
import dev.idem.core.store.IdempotencyRecord;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordState;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The claim rules: every store answers each claim as {@link ClaimVerdict} says for the record it
 * holds, whether it decides in Java (the in-memory store, the JDBC row reader) or on its server
 * (the Redis claim script). {@link IdempotencyStoreContract} extends it (through {@link
 * EvictionContract}), so every store runs it.
 */
public abstract class ClaimRulesContract extends StoreContractSupport {

  private static final Duration RETENTION = Duration.ofHours(1);
  private static final Outcome RECEIPT = Outcome.success(new byte[] {'r'});

  /** What a key holds before the claim that is checked, prepared with fingerprint "a". */
  private enum Situation {
    ABSENT,
    IN_PROGRESS,
    LEASE_ENDED,
    RELEASED,
    COMPLETED,
    ISSUED,
    TOKEN_IN_PROGRESS,
    TOKEN_LEASE_ENDED,
    TOKEN_RELEASED,
    TOKEN_COMPLETED
  }

  private record Case(Situation situation, ClaimRequest request) {}

  @Test
  void everyClaimIsAnsweredAsTheClaimRulesSayForTheRecordFound() {
    List<Case> cases = new ArrayList<>();
    for (Situation situation : Situation.values()) {
      for (Fingerprint asked : List.of(fingerprint("a"), fingerprint("b"), Fingerprint.NONE)) {
        for (boolean token : new boolean[] {false, true}) {
          IdempotencyKey key = newKey();
          prepare(situation, key);
          cases.add(new Case(situation, new ClaimRequest(key, asked, longLease(), token)));
        }
      }
    }
    passBeyond(shortLease());
    for (Case c : cases) {
      IdempotencyRecord found = store().find(c.request().key()).orElse(null);
      ClaimVerdict before = ClaimVerdict.of(found, c.request(), time().now());
      ClaimResult answer = claim(c.request());
      // the record found may expire between the read and the claim (a stalled machine): the
      // claim then answers for the record as it was when it ran, which the later time tells
      Instant now = time().now();
      boolean expired = found != null && !found.expiresAt().isAfter(now);
      ClaimVerdict after = ClaimVerdict.of(expired ? null : found, c.request(), now);
      ClaimVerdict expected = ClaimVerdict.of(answer) == after ? after : before;
      assertThat(ClaimVerdict.of(answer)).as("%s, found %s", c, found).isEqualTo(expected);
      if (answer instanceof ClaimResult.Claimed claimed && found != null) {
        assertThat(claimed.lease().fence()).as("%s: fence", c).isGreaterThan(found.fence());
        if (expected == before) {
          assertThat(store().find(c.request().key()).orElseThrow().token())
              .as("%s: token mark kept", c)
              .isEqualTo(found.token());
        }
      } else if (expected != ClaimVerdict.TAKE && expected != ClaimVerdict.UNKNOWN_TOKEN) {
        assertThat(recordOf(answer).fence())
            .as("%s: the record found", c)
            .isEqualTo(Objects.requireNonNull(found).fence());
      }
    }
  }

  @Test
  void claimsAnAbsentKeyWithAPositiveFence() {
    IdempotencyKey key = newKey();
    Lease lease = claimOrFail(key, fingerprint("a"), longLease());
    assertThat(lease.fence()).isPositive();
    assertThat(lease.key()).isEqualTo(key);
    IdempotencyRecord record = store().find(key).orElseThrow();
    assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS);
    assertThat(record.fingerprint()).isEqualTo(fingerprint("a"));
    assertThat(record.token()).isFalse();
  }

  @Test
  void reportsInProgressToADuplicateWhileTheLeaseRuns() {
    IdempotencyKey key = newKey();
    Lease first = claimOrFail(key, fingerprint("a"), longLease());
    ClaimResult second = claim(key, fingerprint("a"), longLease());
    assertThat(second).isInstanceOf(ClaimResult.InProgress.class);
    assertThat(((ClaimResult.InProgress) second).record().fence()).isEqualTo(first.fence());
  }

  @Test
  void refusesAnotherFingerprintWhileInProgressAndAfterCompletion() {
    IdempotencyKey key = newKey();
    Lease lease = claimOrFail(key, fingerprint("a"), longLease());
    assertThat(claim(key, fingerprint("b"), longLease())).isInstanceOf(ClaimResult.Mismatch.class);
    complete(lease, RECEIPT, RETENTION);
    assertThat(claim(key, fingerprint("b"), longLease())).isInstanceOf(ClaimResult.Mismatch.class);
    assertThat(claim(key, fingerprint("a"), longLease())).isInstanceOf(ClaimResult.Completed.class);
  }

  @Test
  void anUncheckedFingerprintMatchesAnyStoredOne() {
    IdempotencyKey key = newKey();
    Lease lease = claimOrFail(key, fingerprint("a"), longLease());
    complete(lease, RECEIPT, RETENTION);
    assertThat(claim(key, Fingerprint.NONE, longLease())).isInstanceOf(ClaimResult.Completed.class);
  }

  @Test
  void anExpiredLeaseIsTakenOverWithAGreaterFence() {
    IdempotencyKey key = newKey();
    Lease first = claimOrFail(key, fingerprint("a"), shortLease());
    passBeyond(shortLease());
    Lease second = claimOrFail(key, fingerprint("a"), longLease());
    assertThat(second.fence()).isGreaterThan(first.fence());
    assertThat(second.owner()).isNotEqualTo(first.owner());
  }

  @Test
  void anExpiredLeaseIsTakenOverOnlyByTheSameRequest() {
    // the dead owner may have charged the first payload: another payload under its key is key
    // reuse after the lease as while it ran, and the record stays the first one's
    IdempotencyKey key = newKey();
    Lease first = claimOrFail(key, fingerprint("a"), shortLease());
    passBeyond(shortLease());
    ClaimResult other = claim(key, fingerprint("b"), longLease());
    assertThat(other).isInstanceOf(ClaimResult.Mismatch.class);
    assertThat(((ClaimResult.Mismatch) other).record().fence()).isEqualTo(first.fence());
    assertThat(store().find(key).orElseThrow().fingerprint()).isEqualTo(fingerprint("a"));
    Lease same = claimOrFail(key, fingerprint("a"), longLease());
    assertThat(same.fence()).isGreaterThan(first.fence());
  }

  @Test
  void scopesThatDifferInAnyByteAreCountedApart() {
    // a database collation that ignores case, accents or trailing spaces must not make one caller's
    // records count against another's cap
    String caller = scope + ":Ana";
    claimCappedOrFail(IdempotencyKey.of(caller, "k0"), 1);
    for (String other : List.of(scope + ":ana", scope + ":Ana ", scope + ":Aná", scope + ":ANA")) {
      assertThat(claim(capped(IdempotencyKey.of(other, "k0"), 1)))
          .as("the first key of %s", other)
          .isInstanceOf(ClaimResult.Claimed.class);
    }
    assertThatThrownBy(() -> claim(capped(IdempotencyKey.of(caller, "k1"), 1)))
        .isInstanceOf(StoreFullException.class);
  }

  @Test
  void fencesGrowWhateverClockTheClaimingProcessReads() throws Exception {
    // nodes of one fleet whose clocks differ by more than twice the lease each claim the key after
    // the last claim's record is gone: the fence comes from the store, never from a claimant
    IdempotencyStore ahead = storeOnClock(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(10)));
    IdempotencyStore behind =
        storeOnClock(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(-10)));
    try {
      if (ahead == null || behind == null) {
        Assumptions.abort("the store reads no clock of its process");
        return;
      }
      IdempotencyKey key = newKey();
      long last = 0;
      for (IdempotencyStore claimant : List.of(ahead, store(), behind)) {
        ClaimResult result =
            now(claimant.claim(ClaimRequest.of(key, fingerprint("a"), shortLease())));
        assertThat(result).isInstanceOf(ClaimResult.Claimed.class);
        long fence = ((ClaimResult.Claimed) result).lease().fence();
        assertThat(fence).as("the fence after %s", last).isGreaterThan(last);
        last = fence;
        passBeyond(shortLease().multipliedBy(2));
      }
    } finally {
      close(ahead);
      close(behind);
    }
  }

  private static void close(@Nullable IdempotencyStore store) throws Exception {
    if (store instanceof AutoCloseable closeable) {
      closeable.close();
    }
  }

  private void prepare(Situation situation, IdempotencyKey key) {
    Fingerprint a = fingerprint("a");
    boolean token = situation.name().startsWith("TOKEN") || situation == Situation.ISSUED;
    if (token) {
      assertThat(store().issue(key, RETENTION)).isTrue();
    }
    ClaimRequest longClaim = new ClaimRequest(key, a, longLease(), token);
    switch (situation) {
      case ABSENT, ISSUED -> {}
      case IN_PROGRESS, TOKEN_IN_PROGRESS -> taken(longClaim);
      case LEASE_ENDED, TOKEN_LEASE_ENDED -> taken(new ClaimRequest(key, a, shortLease(), token));
      case RELEASED, TOKEN_RELEASED -> assertThat(release(taken(longClaim))).isTrue();
      case COMPLETED, TOKEN_COMPLETED ->
          assertThat(complete(taken(longClaim), RECEIPT, RETENTION)).isTrue();
    }
  }

  private Lease taken(ClaimRequest request) {
    ClaimResult result = claim(request);
    assertThat(result).isInstanceOf(ClaimResult.Claimed.class);
    return ((ClaimResult.Claimed) result).lease();
  }

  private static IdempotencyRecord recordOf(ClaimResult answer) {
    if (answer instanceof ClaimResult.InProgress inProgress) {
      return inProgress.record();
    }
    if (answer instanceof ClaimResult.Completed completed) {
      return completed.record();
    }
    return ((ClaimResult.Mismatch) answer).record();
  }
}
