package dev.idem.core.memory;

import static dev.idem.testsupport.Stages.now;

import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.ClaimVerdict;
import dev.idem.core.store.Lease;
import dev.idem.testsupport.ModelChecks;
import dev.idem.testsupport.MutableClock;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.junit.jupiter.api.Test;

/**
 * Model-checks the in-memory store with Lincheck: every interleaving it explores of claims,
 * completions, releases, reads and the end of the leases must give the answers of some order of the
 * same calls on {@link StoreModel}, the claim rules of {@link ClaimVerdict} on a plain map.
 */
@Param(name = "thread", gen = ThreadIdGen.class)
@Param(name = "key", gen = IntGen.class, conf = "1:2")
@Param(name = "fingerprint", gen = IntGen.class, conf = "0:2")
public class InMemoryStoreLincheckTest {

  private final MutableClock clock = MutableClock.stoppedAt(StoreScenario.START);
  private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore(clock, 100);
  private final StoreScenario.Leases leases = new StoreScenario.Leases();

  @Operation
  public String claim(
      @Param(name = "thread") int thread,
      @Param(name = "key") int key,
      @Param(name = "fingerprint") int fingerprint) {
    ClaimResult result = now(store.claim(StoreScenario.request(key, fingerprint)));
    if (result instanceof ClaimResult.Claimed claimed) {
      leases.keep(thread, key, claimed.lease());
    }
    return ClaimVerdict.of(result).name();
  }

  @Operation
  public boolean complete(@Param(name = "thread") int thread, @Param(name = "key") int key) {
    Lease lease = leases.take(thread, key);
    return lease != null
        && now(store.complete(lease, StoreScenario.OUTCOME, StoreScenario.RETENTION));
  }

  @Operation
  public boolean release(@Param(name = "thread") int thread, @Param(name = "key") int key) {
    Lease lease = leases.take(thread, key);
    return lease != null && now(store.release(lease));
  }

  @Operation
  public String find(@Param(name = "key") int key) {
    return store
        .find(StoreScenario.request(key, 0).key())
        .map(r -> r.state().name())
        .orElse("ABSENT");
  }

  @Test
  void everyInterleavingAnswersAsTheModelInSomeOrder() {
    ModelChecks.check(getClass(), StoreModel.class);
  }
}
