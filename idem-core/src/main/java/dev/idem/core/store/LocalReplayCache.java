package dev.idem.core.store;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import dev.idem.core.IdempotencyKey;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers repeats of completed keys from this process's memory, without a round trip to the store:
 * a decorator that keeps the COMPLETED records its claims read (never one in progress, never a
 * token that is only issued) for at most a short {@linkplain Builder#window window}, and decides a
 * claim on such a record by {@link ClaimVerdict}, as the store would: the same fingerprint gets the
 * stored outcome, another one a mismatch. Anything else goes to the store.
 *
 * <p>A completed record changes only when its retention ends or an operator evicts it. The window
 * bounds both: an entry lives at most the window from the moment the claim that read it was sent,
 * and {@link #evict} of a completed or issued record returns only after the window has passed, so
 * that once an eviction is acknowledged, no instance whose window is no longer replays the record
 * (give every instance the same window). An answer may be replayed up to the window after its
 * retention ended; a claim is never taken, nor an outcome stored, from the cache.
 *
 * <p>Only evictions that go through this cache ({@link #evict}, or {@link #forget} after one made
 * another way) wait out the window; a record removed behind its back (a key deleted in Redis, a row
 * deleted by hand) may still be replayed for up to the window.
 *
 * <p>Bounded by bytes (each entry counts its outcome, twice the characters of its key and {@value
 * #ENTRY_OVERHEAD} bytes), evicting the least used first. Needs Caffeine on the class path.
 */
public final class LocalReplayCache extends ForwardingIdempotencyStore {

  /** What an entry counts beyond its outcome's bytes. */
  public static final int ENTRY_OVERHEAD = 256;

  private static final Logger log = LoggerFactory.getLogger(LocalReplayCache.class);

  private final Cache<IdempotencyKey, Entry> entries;
  private final Duration window;
  private final Predicate<IdempotencyKey> cached;
  private final Clock clock;

  private LocalReplayCache(Builder builder) {
    super(builder.store);
    this.window = builder.window;
    this.cached = builder.cached;
    this.clock = builder.clock;
    this.entries =
        Caffeine.newBuilder()
            .maximumWeight(builder.maxBytes)
            .weigher((IdempotencyKey key, Entry entry) -> entry.weight())
            .expireAfter(new Lifetime())
            .build();
  }

  /** A cache in front of {@code store}, to be configured. */
  public static Builder in(IdempotencyStore store) {
    return new Builder(store);
  }

  /**
   * A record and the {@link System#nanoTime()} after which it is no longer replayed from here:
   * absolute, so that a thread stalled between reading the record and putting it here does not
   * stretch its life.
   */
  private record Entry(IdempotencyRecord record, long deadlineNanos) {

    int weight() {
      Outcome outcome = Objects.requireNonNull(record.outcome(), "completed");
      IdempotencyKey key = record.key();
      long chars = (long) key.scope().length() + key.value().length();
      return (int)
          Math.min(Integer.MAX_VALUE, outcome.payload().length + 2 * chars + ENTRY_OVERHEAD);
    }
  }

  // Caffeine's ticker is System.nanoTime() by default: the same time as the deadlines
  private static final class Lifetime implements Expiry<IdempotencyKey, Entry> {

    @Override
    public long expireAfterCreate(IdempotencyKey key, Entry entry, long currentTime) {
      return Math.max(0, entry.deadlineNanos() - currentTime);
    }

    @Override
    public long expireAfterUpdate(
        IdempotencyKey key, Entry entry, long currentTime, long currentDuration) {
      return Math.max(0, entry.deadlineNanos() - currentTime);
    }

    @Override
    public long expireAfterRead(
        IdempotencyKey key, Entry entry, long currentTime, long currentDuration) {
      return currentDuration;
    }
  }

  @Override
  public CompletableFuture<ClaimResult> claim(ClaimRequest request) {
    if (!answersFrom(request.key())) {
      return super.claim(request);
    }
    ClaimResult hit = fromCache(request);
    if (hit != null) {
      return CompletableFuture.completedFuture(hit);
    }
    // the window counts from before the request leaves: a record read now may be evicted the
    // moment after the store answered
    long sent = System.nanoTime();
    boolean joined = joinsCurrentTransaction();
    return super.claim(request).thenApply(result -> kept(request, result, sent, joined));
  }

  /**
   * Answers what this cache holds and sends the rest to the store together, as one {@link
   * IdempotencyStore#claimAll}: a batch keeps its one round trip. The answers are in the order of
   * {@code requests}.
   */
  @Override
  public List<CompletableFuture<ClaimResult>> claimAll(List<ClaimRequest> requests) {
    @Nullable ClaimResult[] hits = new ClaimResult[requests.size()];
    List<ClaimRequest> missed = new ArrayList<>();
    for (int i = 0; i < hits.length; i++) {
      ClaimRequest request = requests.get(i);
      hits[i] = answersFrom(request.key()) ? fromCache(request) : null;
      if (hits[i] == null) {
        missed.add(request);
      }
    }
    long sent = System.nanoTime();
    boolean joined = joinsCurrentTransaction();
    Iterator<CompletableFuture<ClaimResult>> fromStore =
        missed.isEmpty() ? Collections.emptyIterator() : delegate().claimAll(missed).iterator();
    List<CompletableFuture<ClaimResult>> answers = new ArrayList<>(hits.length);
    for (int i = 0; i < hits.length; i++) {
      ClaimResult hit = hits[i];
      ClaimRequest request = requests.get(i);
      answers.add(
          hit != null
              ? CompletableFuture.completedFuture(hit)
              : fromStore.next().thenApply(result -> kept(request, result, sent, joined)));
    }
    return answers;
  }

  /** Completions never touch the cache: the store gets them as one batch. */
  @Override
  public List<CompletableFuture<Boolean>> completeAll(List<Completion> completions) {
    return delegate().completeAll(completions);
  }

  // A fault of the cache's own parts (the caller's predicate or clock) sends the claim to the
  // store: a claim that failed here would, under fail-open, run completed work again.
  private boolean answersFrom(IdempotencyKey key) {
    return cached(key, false);
  }

  // The predicate's answer, or onFault when it throws.
  private boolean cached(IdempotencyKey key, boolean onFault) {
    try {
      return cached.test(key);
    } catch (RuntimeException e) {
      log.warn("the replay cache's predicate failed for {}", key, e);
      return onFault;
    }
  }

  // null when the store must answer
  private @Nullable ClaimResult fromCache(ClaimRequest request) {
    try {
      Entry entry = entries.getIfPresent(request.key());
      if (entry == null) {
        return null;
      }
      Instant now = clock.instant();
      if (!now.isBefore(entry.record().expiresAt())) {
        return null;
      }
      ClaimVerdict verdict = ClaimVerdict.of(entry.record(), request, now);
      return verdict == ClaimVerdict.TAKE || verdict == ClaimVerdict.IN_PROGRESS
          ? null
          : verdict.answer(entry.record());
    } catch (RuntimeException e) {
      log.warn("the replay cache failed to read {}; the store answers", request.key(), e);
      return null;
    }
  }

  // A record read in the caller's open transaction may not commit; and a record that is not the
  // key's own (a store may answer a step's claim with a record named after its root) is never
  // kept, lest it answer another key. The store's answer stands whatever keeping it does.
  private ClaimResult kept(ClaimRequest request, ClaimResult result, long sent, boolean joined) {
    if (result instanceof ClaimResult.Completed completed
        && !joined
        && completed.record().key().equals(request.key())) {
      try {
        remember(completed.record(), sent);
      } catch (RuntimeException e) {
        log.warn("the replay cache failed to keep {}", request.key(), e);
      }
    }
    return result;
  }

  private void remember(IdempotencyRecord record, long sent) {
    Duration untilExpiry = Duration.between(clock.instant(), record.expiresAt());
    if (untilExpiry.isNegative() || untilExpiry.isZero()) {
      return;
    }
    // a retention of centuries does not fit in nanoseconds; the window is what counts then
    long lifetime = untilExpiry.compareTo(window) >= 0 ? window.toNanos() : untilExpiry.toNanos();
    long deadline = sent + lifetime;
    if (deadline - System.nanoTime() > 0) {
      entries.put(record.key(), new Entry(record, deadline));
    }
  }

  /**
   * Evicts the record from the store and from this cache; for a completed or issued record, then
   * waits out the window, so that no other instance replays it once this returns.
   */
  @Override
  public boolean evict(IdempotencyKey key, RecordState state, long fence) {
    drop(key);
    boolean evicted = super.evict(key, state, fence);
    if (evicted) {
      forget(key, state);
    } else {
      drop(key);
    }
    return evicted;
  }

  /**
   * Forgets a record that was just evicted from the store another way (an operator's tool that
   * holds the undecorated store): drops it from this cache and, unless it was {@code IN_PROGRESS}
   * (never cached) or its key is not cached here, waits out the window, so that no instance replays
   * it once this returns.
   */
  public void forget(IdempotencyKey key, RecordState state) {
    drop(key);
    if (state != RecordState.IN_PROGRESS && covers(key)) {
      waitOut(window);
      // a claim sent before the eviction may have put it back meanwhile, for less than the window
      drop(key);
    }
  }

  /** Drops the key's record from this cache now, without waiting. */
  public void drop(IdempotencyKey key) {
    entries.invalidate(key);
  }

  /**
   * Whether claims of {@code key} may be answered from this cache: true too when the predicate
   * fails, so that an eviction waits out the window rather than trust a predicate that broke.
   */
  public boolean covers(IdempotencyKey key) {
    return cached(key, true);
  }

  /** How long a record read may be replayed from here. */
  public Duration window() {
    return window;
  }

  /**
   * Waits {@code window} and a millisecond, whatever interrupts: an eviction acknowledged early
   * could be followed by a replay elsewhere. The thread's interrupt is kept for its caller.
   */
  public static void waitOut(Duration window) {
    long deadline = System.nanoTime() + window.toNanos() + 1_000_000L;
    boolean interrupted = false;
    long left;
    while ((left = deadline - System.nanoTime()) > 0) {
      try {
        Thread.sleep(left / 1_000_000L, (int) (left % 1_000_000L));
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** The records held now (an estimate, for meters and tests). */
  public long size() {
    entries.cleanUp();
    return entries.estimatedSize();
  }

  /** Configures a {@link LocalReplayCache}. */
  public static final class Builder {

    private final IdempotencyStore store;
    private Duration window = Duration.ofSeconds(1);
    private long maxBytes = 64L * 1024 * 1024;
    private Predicate<IdempotencyKey> cached = key -> true;
    private Clock clock = Clock.systemUTC();

    private Builder(IdempotencyStore store) {
      this.store = Objects.requireNonNull(store, "store");
    }

    /**
     * How long a record read from the store may be replayed from here: the longest an instance may
     * replay an evicted record, and how long {@link #evict} waits. One second by default.
     *
     * @throws IllegalArgumentException unless positive and at most a minute
     */
    public Builder window(Duration window) {
      if (window.isNegative() || window.isZero() || window.compareTo(Duration.ofMinutes(1)) > 0) {
        throw new IllegalArgumentException(
            "the window must be positive and at most a minute, was " + window);
      }
      this.window = window;
      return this;
    }

    /**
     * The most bytes the cache holds (outcomes and {@value #ENTRY_OVERHEAD} bytes per entry); 64
     * MiB by default.
     *
     * @throws IllegalArgumentException unless positive
     */
    public Builder maxBytes(long maxBytes) {
      if (maxBytes <= 0) {
        throw new IllegalArgumentException("maxBytes must be positive, was " + maxBytes);
      }
      this.maxBytes = maxBytes;
      return this;
    }

    /** Which keys are cached (every key by default); the others always go to the store. */
    public Builder only(Predicate<IdempotencyKey> cached) {
      this.cached = Objects.requireNonNull(cached, "cached");
      return this;
    }

    /** The clock a record's expiry is compared with; the system's UTC clock by default. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    public LocalReplayCache build() {
      return new LocalReplayCache(this);
    }
  }
}
