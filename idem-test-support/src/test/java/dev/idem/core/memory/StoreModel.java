package dev.idem.core.memory;

import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimVerdict;
import dev.idem.core.store.IdempotencyRecord;
import dev.idem.core.store.Lease;
import dev.idem.core.store.RecordState;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * The sequential specification of a store, for {@link InMemoryStoreLincheckTest}: a plain map of
 * records, one call at a time, each claim decided by {@link ClaimVerdict} and nothing else.
 */
public class StoreModel {

  private final Map<Integer, IdempotencyRecord> records = new HashMap<>();
  private final StoreScenario.Leases leases = new StoreScenario.Leases();
  private final Instant now = StoreScenario.START;
  private long lastFence;

  public String claim(int thread, int key, int fingerprint) {
    ClaimRequest request = StoreScenario.request(key, fingerprint);
    IdempotencyRecord live = records.get(key);
    ClaimVerdict verdict = ClaimVerdict.of(live, request, now);
    if (verdict == ClaimVerdict.TAKE) {
      Lease lease =
          new Lease(request.key(), ++lastFence, "owner-" + lastFence, now.plus(request.lease()));
      records.put(
          key,
          new IdempotencyRecord(
              request.key(),
              RecordState.IN_PROGRESS,
              request.fingerprint(),
              lease.fence(),
              lease.until(),
              lease.until().plus(request.lease()),
              false,
              null));
      leases.keep(thread, key, lease);
    }
    return verdict.name();
  }

  public boolean complete(int thread, int key) {
    Lease lease = leases.take(thread, key);
    if (!holds(lease, key)) {
      return false;
    }
    IdempotencyRecord r = records.get(key);
    records.put(
        key,
        new IdempotencyRecord(
            r.key(),
            RecordState.COMPLETED,
            r.fingerprint(),
            r.fence(),
            null,
            now.plus(StoreScenario.RETENTION),
            false,
            StoreScenario.OUTCOME));
    return true;
  }

  public boolean release(int thread, int key) {
    Lease lease = leases.take(thread, key);
    if (!holds(lease, key)) {
      return false;
    }
    records.remove(key);
    return true;
  }

  public String find(int key) {
    IdempotencyRecord r = records.get(key);
    return r == null ? "ABSENT" : r.state().name();
  }

  // A lease holds while it is the record's and nobody took over; it may complete after its end.
  private boolean holds(Lease lease, int key) {
    IdempotencyRecord r = records.get(key);
    return lease != null
        && r != null
        && r.state() == RecordState.IN_PROGRESS
        && r.fence() == lease.fence();
  }
}
