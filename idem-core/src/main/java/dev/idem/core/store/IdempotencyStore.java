package dev.idem.core.store;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.OutcomeTooLargeException;
import dev.idem.core.StoreFullException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Where records live. A backend makes the rules of this contract atomic on its storage; the rules
 * themselves are stated here once, and the contract suite in {@code idem-test-support} checks them.
 *
 * <p>Every method is atomic with respect to every other call on the same key, from any thread or
 * process sharing the storage. Time (lease ends, expiry) comes from the store's own clock. A method
 * that cannot reach its storage fails with {@link IdempotencyStoreException} and leaves the record
 * as it was.
 *
 * <p>The three calls of a request's life ({@link #claim}, {@link #complete}, {@link #release})
 * answer as stages, and fail by failing their stage, never by throwing. A store that blocks (a
 * database driver, memory) extends {@link BlockingIdempotencyStore} and ends the stage before it
 * returns, on the calling thread, so that it writes in the caller's transaction where it joins one;
 * a store whose client answers later (Redis) returns at once and ends the stage on a thread of its
 * client, which nobody may block. The engine makes these calls from its own store threads (or a
 * blocking caller's thread), never from an event loop, so a store may block in them. The other
 * calls block.
 *
 * <p>Only the holder of a {@link Lease} calls {@link #complete}, {@link #release} and {@link
 * #renew}; they succeed only while the record's fence and owner both match the lease.
 *
 * <p>A step key ({@link IdempotencyKey#isStep()}) names a record like any other, with its own
 * digest, and counts against its scope's cap like any other; a store keeps it beside its root where
 * that helps (Redis Cluster: in the root's slot). Two rules are its own: a store never writes a
 * step's record in the caller's transaction, since a step's result must outlive a transaction that
 * rolls back; and {@link #evict} of a root key's answer removes the records of its steps too.
 */
public interface IdempotencyStore extends RecordChangeNotifier {

  /**
   * Claims a key in one atomic step and returns what was found:
   *
   * <ul>
   *   <li>absent or expired, or an ISSUED token, or IN_PROGRESS whose lease has ended: the record
   *       becomes IN_PROGRESS with fence + 1 (1 if there was none) and a new owner: {@link
   *       ClaimResult.Claimed};
   *   <li>a different fingerprint on an IN_PROGRESS or COMPLETED record: {@link
   *       ClaimResult.Mismatch};
   *   <li>IN_PROGRESS with a live lease: {@link ClaimResult.InProgress};
   *   <li>COMPLETED: {@link ClaimResult.Completed} with the outcome;
   *   <li>with {@link ClaimRequest#requireIssued()}, a record that is absent or did not begin as a
   *       token: {@link ClaimResult.UnknownToken}.
   * </ul>
   *
   * <p>A claim that would make a record live (the first two cases) while the key's scope already
   * holds {@link ClaimRequest#scopeCap()} other live records fails with {@link StoreFullException}
   * and leaves no record of the key.
   */
  CompletableFuture<ClaimResult> claim(ClaimRequest request);

  /**
   * Claims each of {@code requests}, as {@link #claim} claims one, and answers their stages in the
   * same order: each request is claimed by the rules of {@link #claim} alone, as if claimed on its
   * own in the list's order, and one request's failure fails only its own stage. A store that can
   * sends them together (Redis: one script per hash slot); the default claims them one by one. The
   * requests name distinct keys.
   *
   * <p>A decorator built on {@link ForwardingIdempotencyStore} inherits this default, so every
   * request goes through its own {@link #claim}; it overrides this method to pass the requests on
   * together.
   */
  default List<CompletableFuture<ClaimResult>> claimAll(List<ClaimRequest> requests) {
    List<CompletableFuture<ClaimResult>> answers = new ArrayList<>(requests.size());
    for (ClaimRequest request : requests) {
      try {
        answers.add(claim(request));
      } catch (RuntimeException e) {
        answers.add(CompletableFuture.failedFuture(e));
      }
    }
    return answers;
  }

  /**
   * Stores the outcome and keeps it for {@code retention}. Ends with false, changing nothing, when
   * the lease no longer matches (it was taken over, or the record is gone). A store with a size
   * limit fails with {@link OutcomeTooLargeException} for an outcome over it, changing nothing; it
   * always accepts an {@link Outcome.Kind#UNSTORED} mark, which is small.
   */
  CompletableFuture<Boolean> complete(Lease lease, Outcome outcome, Duration retention);

  /**
   * One outcome to store under its lease, as {@link #complete} stores it.
   *
   * @param lease the lease the outcome's work ran under
   * @param outcome what to store
   * @param retention how long to keep it
   */
  record Completion(Lease lease, Outcome outcome, Duration retention) {}

  /**
   * Stores each of {@code completions}, as {@link #complete} stores one, and answers their stages
   * in the same order; one completion's failure fails only its own stage. A store that can sends
   * them together (JDBC: one batch of statements); the default completes them one by one. The
   * leases name distinct keys. As for {@link #claimAll}, a decorator built on {@link
   * ForwardingIdempotencyStore} inherits the default unless it overrides this method.
   */
  default List<CompletableFuture<Boolean>> completeAll(List<Completion> completions) {
    List<CompletableFuture<Boolean>> answers = new ArrayList<>(completions.size());
    for (Completion c : completions) {
      try {
        answers.add(complete(c.lease(), c.outcome(), c.retention()));
      } catch (RuntimeException e) {
        answers.add(CompletableFuture.failedFuture(e));
      }
    }
    return answers;
  }

  /**
   * Gives the key up after a retryable failure: the record is removed, or goes back to ISSUED (with
   * its original expiry) when it began as a token. Ends with false when the lease no longer
   * matches; calling it twice is harmless.
   */
  CompletableFuture<Boolean> release(Lease lease);

  /**
   * Extends a matching lease to {@code leaseDuration} from now. Returns the renewed lease, or empty
   * when the lease no longer matches (the work should then stop: another owner may run).
   */
  Optional<Lease> renew(Lease lease, Duration leaseDuration);

  /** The record of a key, unless absent or expired. */
  Optional<IdempotencyRecord> find(IdempotencyKey key);

  /**
   * Gives up a record on an operator's word, without its lease: the way out of a key stuck
   * IN_PROGRESS under an owner that will never finish, or of a COMPLETED answer that must not be
   * replayed any longer. Applies only while the key's live record is in {@code state} with {@code
   * fence}, the record the operator read, so a record claimed again since is never touched. The
   * record then goes as {@link #release} gives it up (removed, or back to ISSUED when it is
   * IN_PROGRESS and began as an unexpired token); an evicted COMPLETED or ISSUED record is removed.
   * Its owner's {@code complete}, {@code release} and {@code renew} return false from then on,
   * waiters are told as after a release, the record stops counting against its scope's cap, and the
   * next claim of the key is taken with a greater fence, as after any release.
   *
   * <p>When a COMPLETED or ISSUED record was given up and {@code key} is no step, the records of
   * all its steps are removed too, whatever their state, so that the next claim of the key runs
   * every step again; an IN_PROGRESS record given up keeps its steps, as a release does, so that
   * the run that takes the key over resumes after the steps that ended.
   *
   * <p>Not for the engine: nothing in the normal life of a record calls it.
   *
   * @return true when the record was given up; false, changing nothing, when the key has no live
   *     record in that state with that fence
   */
  boolean evict(IdempotencyKey key, RecordState state, long fence);

  /** {@link #issue(IdempotencyKey, Duration, int)} without a cap on the scope. */
  default boolean issue(IdempotencyKey key, Duration ttl) {
    return issue(key, ttl, ClaimRequest.NO_CAP);
  }

  /**
   * Creates an ISSUED record that lives for {@code ttl}; returns false, changing nothing, when a
   * live record of that key exists.
   *
   * @param scopeCap the most live records the key's scope may hold, as for {@link
   *     ClaimRequest#scopeCap()}; {@link ClaimRequest#NO_CAP} for none
   * @throws StoreFullException the scope already holds {@code scopeCap} live records; nothing was
   *     written
   */
  boolean issue(IdempotencyKey key, Duration ttl, int scopeCap);

  /**
   * Deletes up to {@code limit} expired records and returns how many it deleted. Safe to call from
   * several nodes at once. Stores that expire records by themselves may return 0.
   */
  int purgeExpired(int limit);

  /** What this store can do beyond the contract; the contract suite skips the rest. */
  default Set<StoreCapability> capabilities() {
    return Set.of();
  }

  /**
   * True when a call made now, on this thread, writes in the caller's open transaction, so that the
   * record commits or rolls back with the caller's own writes (the JDBC store's join mode). The
   * engine then lets that transaction decide the record's fate: every outcome of the work, a thrown
   * exception included, is stored in it. Only a store with {@link
   * StoreCapability#JOINS_TRANSACTIONS} ever answers true. The answer is for root keys: a step's
   * record is never written in the caller's transaction.
   */
  default boolean joinsCurrentTransaction() {
    return false;
  }

  /**
   * Calls {@code listener} after the next change of the key's record, when this store has {@link
   * StoreCapability#CHANGE_NOTIFICATION}; a store without it never calls the listener (the
   * default), and its waiters wake by time alone.
   */
  @Override
  default Subscription onChange(IdempotencyKey key, Runnable listener) {
    return () -> {};
  }
}
