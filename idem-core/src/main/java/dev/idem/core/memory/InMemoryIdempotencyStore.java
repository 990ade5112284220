package dev.idem.core.memory;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.OutcomeTooLargeException;
import dev.idem.core.StoreFullException;
import dev.idem.core.internal.OneShotListeners;
import dev.idem.core.store.BlockingIdempotencyStore;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.IdempotencyRecord;
import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordChangeNotifier;
import dev.idem.core.store.RecordState;
import dev.idem.core.store.StoreCapability;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A store in this process's memory: for tests, single-instance services and as the reference
 * implementation of the contract. Records are held by key rather than by digest: nothing here
 * parses key text, and hashing every key would only cost time. Thread-safe; every operation is one
 * atomic {@code compute} on a {@link ConcurrentHashMap}. Time comes from the injected {@link
 * Clock}.
 *
 * <p>Bounded two ways: records in all ({@code maxEntries}) and bytes in all ({@code maxBytes},
 * outcomes and keys, estimated). One caller (the part of a scope after its first {@code |}, see
 * {@link IdempotencyKey#scope(String, String)}) holds at most a quarter of each across all its
 * scopes, so the rest stays for others whatever one caller sends; a scope that names no caller (a
 * message consumer's, a bean method's without one) is bound by the store's bounds alone; a claim or
 * issue may also cap its scope ({@link ClaimRequest#scopeCap()}). Past a bound, a claim or issue of
 * a new key first sweeps out expired records and then, if still full, fails with {@link
 * StoreFullException}; an outcome that does not fit in the bytes left is refused with {@link
 * OutcomeTooLargeException}, so the engine keeps the key with a small mark. It never evicts a live
 * record, since that would let a duplicate through. Expired records are also swept a few at a time
 * as new keys arrive, and by {@link #purgeExpired(int)}.
 *
 * <p>Just over 400 lines because it makes every rule of the store contract atomic on one map, each
 * call beside the others it must agree with; the records, the scope tally and the claims are
 * classes of their own.
 */
public final class InMemoryIdempotencyStore extends BlockingIdempotencyStore
    implements RecordChangeNotifier {

  /** The default bound on live records: 100 000. */
  public static final int DEFAULT_MAX_ENTRIES = 100_000;

  /** The default bound on bytes held: 256 MiB. */
  public static final long DEFAULT_MAX_BYTES = 256L * 1024 * 1024;

  // One caller holds at most 1/CALLER_SHARE of the records and of the bytes.
  private static final int CALLER_SHARE = 4;

  // A caller at its cap must not make every refusal a sweep of the whole map.
  private static final Duration FULL_SWEEP_EVERY = Duration.ofSeconds(1);

  // Every SWEEP_EVERY new keys, the sweep looks at SWEEP_BATCH more records, resuming where it
  // stopped: two looks per new key, so expired records go at least as fast as new ones come.
  private static final int SWEEP_EVERY = 64;
  private static final int SWEEP_BATCH = 128;

  private final ConcurrentMap<IdempotencyKey, StoredRecord> records = new ConcurrentHashMap<>();
  private final OneShotListeners<IdempotencyKey> listeners = new OneShotListeners<>();
  private final AtomicInteger inserts = new AtomicInteger();
  // One counter for every key: a fence is greater than all fences before it, whatever became of
  // their records (released, expired, purged).
  private final AtomicLong fences = new AtomicLong();
  private final ReentrantLock sweepLock = new ReentrantLock();
  private @Nullable Iterator<Map.Entry<IdempotencyKey, StoredRecord>> sweepCursor;
  private final Tally tally = new Tally();
  private final Clock clock;
  private final int maxEntries;
  private final long maxBytes;
  private volatile Instant lastFullSweep = Instant.MIN;

  /** A store on the system clock with the default bounds. */
  public InMemoryIdempotencyStore() {
    this(Clock.systemUTC(), DEFAULT_MAX_ENTRIES);
  }

  /**
   * A store with the default bound on bytes.
   *
   * @param clock where time comes from
   * @param maxEntries the most records held at once; at least 1
   */
  public InMemoryIdempotencyStore(Clock clock, int maxEntries) {
    this(clock, maxEntries, DEFAULT_MAX_BYTES);
  }

  /**
   * @param clock where time comes from
   * @param maxEntries the most records held at once; at least 1
   * @param maxBytes the most bytes held at once (estimated); at least 1
   */
  public InMemoryIdempotencyStore(Clock clock, int maxEntries, long maxBytes) {
    if (maxEntries < 1) {
      throw new IllegalArgumentException("maxEntries must be at least 1, was " + maxEntries);
    }
    if (maxBytes < 1) {
      throw new IllegalArgumentException("maxBytes must be at least 1, was " + maxBytes);
    }
    this.clock = clock;
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
  }

  @Override
  protected ClaimResult claimNow(ClaimRequest request) {
    IdempotencyKey id = request.key();
    Instant now = clock.instant();
    ClaimResult[] result = new ClaimResult[1];
    makeRoomFor(id, now, request.requireIssued() ? ClaimRequest.NO_CAP : request.scopeCap());
    records.compute(
        id,
        (k, stored) -> {
          StoredRecord live = stored == null || stored.isExpired(now) ? null : stored;
          Claim decided = Claim.decide(live, request, now, fences::incrementAndGet);
          result[0] = decided.result();
          StoredRecord next = decided.next() != null ? decided.next() : stored;
          tally.changed(stored, next);
          return next;
        });
    return result[0];
  }

  @Override
  protected boolean completeNow(Lease lease, Outcome outcome, Duration retention) {
    String caller = Tally.caller(lease.key().scope());
    long left =
        caller == null
            ? maxBytes - tally.bytes()
            : Math.min(maxBytes - tally.bytes(), callerShare(maxBytes) - tally.callerBytes(caller));
    int size = outcome.payload().length;
    if (outcome.kind() != Outcome.Kind.UNSTORED && size > 0 && size > left) {
      throw new OutcomeTooLargeException(
          outcome.payload().length, (int) Math.min(Integer.MAX_VALUE, Math.max(0, left)));
    }
    Instant now = clock.instant();
    return changeIfOwned(lease, stored -> stored.completed(outcome, now.plus(retention)));
  }

  @Override
  protected boolean releaseNow(Lease lease) {
    Instant now = clock.instant();
    return changeIfOwned(lease, stored -> stored.released(now));
  }

  @Override
  public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
    Instant until = clock.instant().plus(leaseDuration);
    boolean renewed = changeIfOwned(lease, stored -> stored.renewed(until, leaseDuration), false);
    return renewed ? Optional.of(lease.withUntil(until)) : Optional.empty();
  }

  @Override
  public Optional<IdempotencyRecord> find(IdempotencyKey key) {
    StoredRecord stored = records.get(key);
    if (stored == null || stored.isExpired(clock.instant())) {
      return Optional.empty();
    }
    return Optional.of(stored.record());
  }

  @Override
  public boolean evict(IdempotencyKey key, RecordState state, long fence) {
    Instant now = clock.instant();
    if (state != RecordState.IN_PROGRESS && !key.isStep()) {
      // the steps of an answer go first: while it stands no run makes new ones, so none of the
      // run that claims the key next is taken for an old one
      StoredRecord answer = records.get(key);
      if (answer != null
          && !answer.isExpired(now)
          && answer.record().state() == state
          && answer.record().fence() == fence) {
        evictSteps(key);
      }
    }
    boolean[] evicted = new boolean[1];
    records.computeIfPresent(
        key,
        (k, stored) -> {
          IdempotencyRecord r = stored.record();
          if (stored.isExpired(now) || r.state() != state || r.fence() != fence) {
            return stored;
          }
          evicted[0] = true;
          StoredRecord next = state == RecordState.IN_PROGRESS ? stored.released(now) : null;
          tally.changed(stored, next);
          return next;
        });
    if (evicted[0]) {
      listeners.fire(key);
    }
    return evicted[0];
  }

  // the steps of an evicted key go with it, whatever their state; a test store may scan
  private void evictSteps(IdempotencyKey key) {
    for (IdempotencyKey k : records.keySet()) {
      if (k.isStep() && !key.isStep() && k.root().equals(key)) {
        StoredRecord[] gone = new StoredRecord[1];
        records.computeIfPresent(
            k,
            (step, stored) -> {
              gone[0] = stored;
              tally.changed(stored, null);
              return null;
            });
        if (gone[0] != null) {
          listeners.fire(k);
        }
      }
    }
  }

  @Override
  public boolean issue(IdempotencyKey key, Duration ttl, int scopeCap) {
    IdempotencyKey id = key;
    Instant now = clock.instant();
    boolean[] issued = new boolean[1];
    makeRoomFor(id, now, scopeCap);
    records.compute(
        id,
        (k, stored) -> {
          if (stored != null && !stored.isExpired(now)) {
            return stored;
          }
          issued[0] = true;
          StoredRecord next =
              StoredRecord.issued(key, stored == null ? 0 : stored.record().fence(), now.plus(ttl));
          tally.changed(stored, next);
          return next;
        });
    return issued[0];
  }

  @Override
  public int purgeExpired(int limit) {
    Instant now = clock.instant();
    int purged = 0;
    Iterator<Map.Entry<IdempotencyKey, StoredRecord>> it = records.entrySet().iterator();
    while (it.hasNext() && purged < limit) {
      Map.Entry<IdempotencyKey, StoredRecord> e = it.next();
      if (e.getValue().isExpired(now) && records.remove(e.getKey(), e.getValue())) {
        tally.changed(e.getValue(), null);
        purged++;
        listeners.fire(e.getKey());
      }
    }
    return purged;
  }

  @Override
  public Set<StoreCapability> capabilities() {
    return Set.of(StoreCapability.CHANGE_NOTIFICATION);
  }

  @Override
  public Subscription onChange(IdempotencyKey key, Runnable listener) {
    return listeners.add(key, listener)::run;
  }

  /** How many records are held, expired ones not yet swept included. */
  public int size() {
    return records.size();
  }

  private boolean changeIfOwned(
      Lease lease, Function<StoredRecord, @Nullable StoredRecord> change) {
    return changeIfOwned(lease, change, true);
  }

  private boolean changeIfOwned(
      Lease lease, Function<StoredRecord, @Nullable StoredRecord> change, boolean notify) {
    IdempotencyKey id = lease.key();
    boolean[] changed = new boolean[1];
    records.computeIfPresent(
        id,
        (k, stored) -> {
          if (!stored.isOwnedBy(lease)) {
            return stored;
          }
          changed[0] = true;
          StoredRecord next = change.apply(stored);
          tally.changed(stored, next);
          return next;
        });
    if (changed[0] && notify) {
      listeners.fire(id);
    }
    return changed[0];
  }

  private void sweepSome(Instant now) {
    if (!sweepLock.tryLock()) {
      return;
    }
    try {
      for (int i = 0; i < SWEEP_BATCH; i++) {
        if (sweepCursor == null || !sweepCursor.hasNext()) {
          sweepCursor = records.entrySet().iterator();
          if (!sweepCursor.hasNext()) {
            return;
          }
        }
        Map.Entry<IdempotencyKey, StoredRecord> e = sweepCursor.next();
        if (e.getValue().isExpired(now) && records.remove(e.getKey(), e.getValue())) {
          tally.changed(e.getValue(), null);
          listeners.fire(e.getKey());
        }
      }
    } finally {
      sweepLock.unlock();
    }
  }

  private void makeRoomFor(IdempotencyKey id, Instant now, int scopeCap) {
    if (inserts.incrementAndGet() % SWEEP_EVERY == 0) {
      sweepSome(now);
    }
    if (isLive(id, now) || !full(id, scopeCap)) {
      return;
    }
    if (!now.isBefore(lastFullSweep.plus(FULL_SWEEP_EVERY))) {
      lastFullSweep = now;
      purgeExpired(Integer.MAX_VALUE);
    }
    if (tally.records(id.scope()) >= scopeCap && sweepScope(id.scope(), now) >= scopeCap) {
      throw StoreFullException.scopeCap(scopeCap, id.scope());
    }
    if (records.size() >= maxEntries || tally.bytes() >= maxBytes) {
      throw new StoreFullException(
          "in-memory idempotency store is full ("
              + maxEntries
              + " records or "
              + maxBytes
              + " bytes)");
    }
    if (callerFull(id)) {
      throw new StoreFullException(
          "the caller of scope "
              + id.scope()
              + " holds its share of the in-memory idempotency store ("
              + callerShare(maxEntries)
              + " records or "
              + callerShare(maxBytes)
              + " bytes)");
    }
  }

  // A quarter of a bound, and at least one: what one caller may hold of it.
  private static long callerShare(long bound) {
    return Math.max(1, bound / CALLER_SHARE);
  }

  private boolean callerFull(IdempotencyKey id) {
    String caller = Tally.caller(id.scope());
    return caller != null
        && (tally.callerRecords(caller) >= callerShare(maxEntries)
            || tally.callerBytes(caller) >= callerShare(maxBytes));
  }

  // A scope at its cap drops its expired records once one of them may have ended, so a caller gets
  // room back exactly when its records end, and a caller refused again and again costs no scan.
  private long sweepScope(String scope, Instant now) {
    Tally.Scope held = tally.scope(scope);
    if (held == null || now.isBefore(held.earliestEnd)) {
      return tally.records(scope);
    }
    Instant earliest = Instant.MAX;
    for (IdempotencyKey key : held.keys) {
      StoredRecord r = records.get(key);
      if (r == null) {
        continue;
      }
      if (r.isExpired(now)) {
        if (records.remove(key, r)) {
          tally.changed(r, null);
          listeners.fire(key);
        }
      } else if (r.record().expiresAt().isBefore(earliest)) {
        earliest = r.record().expiresAt();
      }
    }
    held.earliestEnd = earliest;
    return tally.records(scope);
  }

  private boolean isLive(IdempotencyKey id, Instant now) {
    StoredRecord stored = records.get(id);
    return stored != null && !stored.isExpired(now);
  }

  private boolean full(IdempotencyKey id, int scopeCap) {
    return records.size() >= maxEntries
        || tally.bytes() >= maxBytes
        || tally.records(id.scope()) >= scopeCap
        || callerFull(id);
  }
}
