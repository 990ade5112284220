package dev.idem.jdbc;

import static dev.idem.testsupport.Stages.now;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.BlockingIdempotencyStore;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.IdempotencyRecord;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordState;
import dev.idem.core.store.StoreCapability;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * A join-mode store whose every call runs in its own application transaction, so that the contract
 * suites exercise the joined code path (the thread's connection, no commit by the store) with the
 * same rules as plain mode.
 */
final class TransactionPerCall extends BlockingIdempotencyStore {

  private final IdempotencyStore joined;
  private final JdbcTransactions tx;

  TransactionPerCall(IdempotencyStore joined, JdbcTransactions tx) {
    this.joined = joined;
    this.tx = tx;
  }

  @Override
  protected ClaimResult claimNow(ClaimRequest request) {
    return tx.inTransaction(c -> now(joined.claim(request)));
  }

  @Override
  protected boolean completeNow(Lease lease, Outcome outcome, Duration retention) {
    return tx.inTransaction(c -> now(joined.complete(lease, outcome, retention)));
  }

  @Override
  protected boolean releaseNow(Lease lease) {
    return tx.inTransaction(c -> now(joined.release(lease)));
  }

  @Override
  public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
    return tx.inTransaction(c -> joined.renew(lease, leaseDuration));
  }

  @Override
  public Optional<IdempotencyRecord> find(IdempotencyKey key) {
    return tx.inTransaction(c -> joined.find(key));
  }

  @Override
  public boolean evict(IdempotencyKey key, RecordState state, long fence) {
    return tx.inTransaction(c -> joined.evict(key, state, fence));
  }

  @Override
  public boolean issue(IdempotencyKey key, Duration ttl, int scopeCap) {
    return tx.inTransaction(c -> joined.issue(key, ttl, scopeCap));
  }

  @Override
  public int purgeExpired(int limit) {
    return tx.inTransaction(c -> joined.purgeExpired(limit));
  }

  @Override
  public Set<StoreCapability> capabilities() {
    return joined.capabilities();
  }
}
