package dev.idem.spring.metrics;

import dev.idem.core.ClaimRequest;
import dev.idem.core.ClaimResult;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyRecord;
import dev.idem.core.IdempotencyStore;
import dev.idem.core.Lease;
import dev.idem.core.Outcome;
import dev.idem.core.RecordChangeNotifier;
import dev.idem.core.StoreCapability;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Times every call to a store as {@code idem.store.calls{call, outcome}}: call is claim, complete,
 * release, renew, find, issue or purge; outcome is ok, or error when the call threw. A claim that
 * finds the key taken is ok: the store answered. Everything else is passed to the store unchanged.
 *
 * <p>The registry is asked for at the first call (it may be created after the store); without one,
 * calls are not timed.
 */
public class TimedIdempotencyStore implements IdempotencyStore {

  /** The meter's name. */
  public static final String METER = "idem.store.calls";

  private final IdempotencyStore delegate;
  private final Supplier<MeterRegistry> registrySupplier;
  private final Map<String, Timer> timers = new ConcurrentHashMap<>();
  private volatile Optional<MeterRegistry> registry;

  TimedIdempotencyStore(IdempotencyStore delegate, Supplier<MeterRegistry> registry) {
    this.delegate = delegate;
    this.registrySupplier = registry;
  }

  /**
   * Wraps {@code store}; the result is a {@link RecordChangeNotifier} when {@code store} is one, so
   * that waiting duplicates still wake on change notices.
   *
   * @param registry supplies the registry at the first call; may supply null
   */
  public static IdempotencyStore wrap(IdempotencyStore store, Supplier<MeterRegistry> registry) {
    return store instanceof RecordChangeNotifier
        ? new Notifying(store, registry)
        : new TimedIdempotencyStore(store, registry);
  }

  /** The store being timed. */
  public IdempotencyStore delegate() {
    return delegate;
  }

  @Override
  public ClaimResult claim(ClaimRequest request) {
    return time("claim", () -> delegate.claim(request));
  }

  @Override
  public boolean complete(Lease lease, Outcome outcome, Duration retention) {
    return time("complete", () -> delegate.complete(lease, outcome, retention));
  }

  @Override
  public boolean release(Lease lease) {
    return time("release", () -> delegate.release(lease));
  }

  @Override
  public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
    return time("renew", () -> delegate.renew(lease, leaseDuration));
  }

  @Override
  public Optional<IdempotencyRecord> find(IdempotencyKey key) {
    return time("find", () -> delegate.find(key));
  }

  @Override
  public boolean issue(IdempotencyKey key, Duration ttl) {
    return time("issue", () -> delegate.issue(key, ttl));
  }

  @Override
  public int purgeExpired(int limit) {
    return time("purge", () -> delegate.purgeExpired(limit));
  }

  @Override
  public Set<StoreCapability> capabilities() {
    return delegate.capabilities();
  }

  @Override
  public String toString() {
    return "timed " + delegate;
  }

  private <T> T time(String call, Supplier<T> body) {
    long start = System.nanoTime();
    boolean ok = false;
    try {
      T result = body.get();
      ok = true;
      return result;
    } finally {
      record(call, ok ? "ok" : "error", System.nanoTime() - start);
    }
  }

  private void record(String call, String outcome, long nanos) {
    Optional<MeterRegistry> found = registry;
    if (found == null) {
      found = Optional.ofNullable(registrySupplier.get());
      registry = found;
    }
    if (found.isEmpty()) {
      return;
    }
    MeterRegistry meters = found.get();
    timers
        .computeIfAbsent(
            call + '\n' + outcome,
            k ->
                Timer.builder(METER)
                    .description("Calls to the idempotency store, by call and how they ended")
                    .tag("call", call)
                    .tag("outcome", outcome)
                    .register(meters))
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  /** The timed form of a store that sends change notices; notices are passed through. */
  private static final class Notifying extends TimedIdempotencyStore
      implements RecordChangeNotifier {
    private final RecordChangeNotifier notifier;

    Notifying(IdempotencyStore delegate, Supplier<MeterRegistry> registry) {
      super(delegate, registry);
      this.notifier = (RecordChangeNotifier) delegate;
    }

    @Override
    public Subscription onChange(IdempotencyKey key, Runnable listener) {
      return notifier.onChange(key, listener);
    }
  }
}
