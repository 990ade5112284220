package dev.idem.testsupport;

import static dev.idem.testsupport.Stages.now;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.IdempotencyRecord;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.StoreCapability;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;

/**
 * What every store contract suite needs from a backend, and the small helpers they share. A
 * backend's test extends a suite and supplies {@link #store()}; it may override the rest.
 */
public abstract class StoreContractSupport {

  /**
   * A fresh scope per test class instance, so tests never see each other's keys on a shared server.
   */
  protected final String scope = "contract:" + UUID.randomUUID();

  /** The store under test. May be shared by all tests; keys never repeat across tests. */
  protected abstract IdempotencyStore store();

  /**
   * A second store on the backend under test, in a process whose clock is {@code clock}: a node of
   * the fleet whose clock is off. Null (the default) where no process clock can reach what the
   * store hands out: a store that reads only its database's clock, or the in-memory store, which
   * has no second process. The test closes it when it is {@link AutoCloseable}.
   */
  protected @Nullable IdempotencyStore storeOnClock(Clock clock) {
    return null;
  }

  /** The outcome of a completed record; fails the test when it has none. */
  protected static Outcome outcomeOf(IdempotencyRecord record) {
    return Objects.requireNonNull(record.outcome(), () -> "no outcome in " + record);
  }

  /** How time passes for the store; real time unless overridden. */
  protected TimeControl time() {
    return TimeControl.realTime();
  }

  /** A lease short enough to wait out in a test, long enough not to end by accident. */
  protected Duration shortLease() {
    return Duration.ofMillis(400);
  }

  /** A lease no test outlives. */
  protected Duration longLease() {
    return Duration.ofSeconds(30);
  }

  /** Extra time past a deadline, for clocks that tick coarsely. */
  protected Duration margin() {
    return Duration.ofMillis(150);
  }

  protected IdempotencyKey newKey() {
    return IdempotencyKey.of(scope, UUID.randomUUID().toString());
  }

  protected static Fingerprint fingerprint(String body) {
    return Fingerprint.of("POST /contract", body);
  }

  protected static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  protected ClaimResult claim(IdempotencyKey key, Fingerprint fp, Duration lease) {
    return claim(ClaimRequest.of(key, fp, lease));
  }

  /** The store's answer to {@code request}, waited for; its failure thrown as it is. */
  protected ClaimResult claim(ClaimRequest request) {
    return now(store().claim(request));
  }

  /** The store's completion, waited for; its failure thrown as it is. */
  protected boolean complete(Lease lease, Outcome outcome, Duration retention) {
    return now(store().complete(lease, outcome, retention));
  }

  /** The store's release, waited for; its failure thrown as it is. */
  protected boolean release(Lease lease) {
    return now(store().release(lease));
  }

  protected Lease claimOrFail(IdempotencyKey key, Fingerprint fp, Duration lease) {
    ClaimResult result = claim(key, fp, lease);
    assertThat(result).isInstanceOf(ClaimResult.Claimed.class);
    return ((ClaimResult.Claimed) result).lease();
  }

  /** A claim with fingerprint "a" and a long lease whose scope holds at most {@code cap}. */
  protected ClaimRequest capped(IdempotencyKey key, int cap) {
    return new ClaimRequest(key, fingerprint("a"), longLease(), false, cap);
  }

  protected Lease claimCappedOrFail(IdempotencyKey key, int cap) {
    ClaimResult result = claim(capped(key, cap));
    assertThat(result).isInstanceOf(ClaimResult.Claimed.class);
    return ((ClaimResult.Claimed) result).lease();
  }

  protected void passBeyond(Duration d) {
    time().pass(d.plus(margin()));
  }

  protected void assumeCapability(StoreCapability capability) {
    Assumptions.assumeTrue(
        store().capabilities().contains(capability), "store lacks " + capability);
  }
}
