package dev.idem.core.resume;

import dev.idem.core.internal.Durations;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A {@link ResumeLog} in this process's memory, by the given clock: for tests and for a single
 * instance that runs its calls on the in-memory store. Its entries die with the process, as that
 * store's records do.
 */
public final class InMemoryResumeLog implements ResumeLog {

  private final Clock clock;
  private final Map<String, Kept> entries = new HashMap<>();

  /** A log by the system clock. */
  public InMemoryResumeLog() {
    this(Clock.systemUTC());
  }

  /** A log by {@code clock}, which decides due times and expiry. */
  public InMemoryResumeLog(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  public synchronized void remember(ResumeEntry entry, Duration delay, Duration keepFor) {
    Instant now = clock.instant();
    Kept kept = entries.get(idOf(entry));
    if (kept == null || kept.expiredAt(now) || !sameRequest(kept, entry)) {
      entries.put(
          idOf(entry),
          new Kept(
              ResumeEntry.of(entry.operation(), entry.key(), entry.fingerprint(), entry.input()),
              Durations.plusSaturated(now, delay),
              Durations.plusSaturated(now, keepFor)));
    }
  }

  @Override
  public synchronized List<ResumeEntry> takeDue(String operation, Duration hold, int limit) {
    Instant now = clock.instant();
    List<Map.Entry<String, Kept>> due = new ArrayList<>();
    for (Map.Entry<String, Kept> e : entries.entrySet()) {
      Kept kept = e.getValue();
      if (kept.entry().operation().equals(operation)
          && !kept.entry().abandoned()
          && !kept.expiredAt(now)
          && !kept.dueAt().isAfter(now)) {
        due.add(e);
      }
    }
    due.sort(Comparator.comparing(e -> e.getValue().dueAt()));
    List<ResumeEntry> taken = new ArrayList<>();
    for (Map.Entry<String, Kept> e : due.subList(0, Math.min(limit, due.size()))) {
      Kept kept = e.getValue();
      entries.put(e.getKey(), kept.dueAt(Durations.plusSaturated(now, hold)));
      taken.add(kept.entry());
    }
    return taken;
  }

  @Override
  public synchronized boolean failed(ResumeEntry entry, Duration delay) {
    Instant now = clock.instant();
    return counted(entry, now, false, Durations.plusSaturated(now, delay));
  }

  @Override
  public synchronized boolean abandon(ResumeEntry entry) {
    return counted(entry, clock.instant(), true, null);
  }

  // Counts a failed attempt on a pending entry, abandoning it or making it due at dueAt.
  private boolean counted(
      ResumeEntry entry, Instant now, boolean abandon, @Nullable Instant dueAt) {
    Kept kept = pending(entry, now);
    if (kept == null) {
      return false;
    }
    ResumeEntry e = kept.entry();
    entries.put(
        idOf(entry),
        new Kept(
            new ResumeEntry(
                e.operation(), e.key(), e.fingerprint(), e.input(), e.attempts() + 1, abandon),
            dueAt == null ? kept.dueAt() : dueAt,
            kept.expiresAt()));
    return true;
  }

  @Override
  public synchronized List<ResumeEntry> abandoned(String operation, int limit) {
    Instant now = clock.instant();
    return entries.values().stream()
        .filter(k -> k.entry().operation().equals(operation))
        .filter(k -> k.entry().abandoned() && !k.expiredAt(now))
        .map(Kept::entry)
        .limit(limit)
        .toList();
  }

  @Override
  public synchronized boolean reopen(ResumeEntry entry) {
    Instant now = clock.instant();
    Kept kept = entries.get(idOf(entry));
    if (kept == null
        || kept.expiredAt(now)
        || !kept.entry().abandoned()
        || !sameRequest(kept, entry)) {
      return false;
    }
    ResumeEntry e = kept.entry();
    entries.put(
        idOf(entry),
        new Kept(
            ResumeEntry.of(e.operation(), e.key(), e.fingerprint(), e.input()),
            now,
            kept.expiresAt()));
    return true;
  }

  @Override
  public synchronized boolean forget(ResumeEntry entry) {
    Kept kept = entries.get(idOf(entry));
    if (kept == null || !sameRequest(kept, entry)) {
      return false;
    }
    entries.remove(idOf(entry));
    return !kept.expiredAt(clock.instant());
  }

  @Override
  public synchronized int purgeExpired(int limit) {
    Instant now = clock.instant();
    int purged = 0;
    var it = entries.values().iterator();
    while (it.hasNext() && purged < limit) {
      if (it.next().expiredAt(now)) {
        it.remove();
        purged++;
      }
    }
    return purged;
  }

  private @Nullable Kept pending(ResumeEntry entry, Instant now) {
    Kept kept = entries.get(idOf(entry));
    return kept == null
            || kept.expiredAt(now)
            || kept.entry().abandoned()
            || !sameRequest(kept, entry)
        ? null
        : kept;
  }

  private static boolean sameRequest(Kept kept, ResumeEntry entry) {
    return kept.entry().fingerprint().equals(entry.fingerprint());
  }

  private static String idOf(ResumeEntry entry) {
    return entry.operation() + "|" + entry.id();
  }

  private record Kept(ResumeEntry entry, Instant dueAt, Instant expiresAt) {

    boolean expiredAt(Instant now) {
      return !expiresAt.isAfter(now);
    }

    Kept dueAt(Instant at) {
      return new Kept(entry, at, expiresAt);
    }
  }
}
