package dev.idem.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.resume.ResumeEntry;
import dev.idem.core.resume.ResumeLog;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The rules of {@link ResumeLog} on a backend: entries due by the storage's clock, taken by one
 * completer at a time, counted, abandoned, reopened, forgotten and expired. Every test works in an
 * operation of its own, so backends may share one log between tests.
 */
public abstract class ResumeLogContract {

  private static final Duration LONG = Duration.ofMinutes(10);

  /** The log under test. */
  protected abstract ResumeLog log();

  /** How time passes for the log; real time unless the log runs on a clock the test moves. */
  protected TimeControl time() {
    return TimeControl.realTime();
  }

  /** A delay the log tells apart from now, and no more than the suite needs. */
  protected Duration tick() {
    return Duration.ofMillis(300);
  }

  /** True for a storage that drops expired entries by itself, so that a purge finds none. */
  protected boolean expiresByItself() {
    return false;
  }

  private final String operation = "resume-" + UUID.randomUUID();

  private ResumeEntry entry(String input) {
    return entry(IdempotencyKey.of(operation, "k-" + UUID.randomUUID()), input);
  }

  private ResumeEntry entry(IdempotencyKey key, String input) {
    byte[] bytes = input.getBytes(StandardCharsets.UTF_8);
    return ResumeEntry.of(operation, key, Fingerprint.of(operation, bytes), bytes);
  }

  private List<ResumeEntry> takeAll() {
    return log().takeDue(operation, LONG, 100);
  }

  @Test
  void anEntryIsDueOnlyAfterItsDelayAndComesBackAsWritten() {
    ResumeEntry entry = entry("pay 10 to \u00e9mile");
    log().remember(entry, tick(), LONG);
    assertThat(takeAll()).isEmpty();
    time().pass(tick().multipliedBy(2));
    List<ResumeEntry> taken = takeAll();
    assertThat(taken).containsExactly(entry);
    assertThat(taken.get(0).input()).isEqualTo(entry.input());
    assertThat(taken.get(0).attempts()).isZero();
    assertThat(taken.get(0).abandoned()).isFalse();
  }

  @Test
  void aTakenEntryIsPassedOverUntilItsHoldEnds() {
    ResumeEntry entry = entry("a");
    log().remember(entry, Duration.ZERO, LONG);
    assertThat(log().takeDue(operation, tick(), 10)).containsExactly(entry);
    assertThat(log().takeDue(operation, tick(), 10)).isEmpty();
    time().pass(tick().multipliedBy(2));
    assertThat(log().takeDue(operation, tick(), 10)).containsExactly(entry);
  }

  @Test
  void rememberingAgainKeepsTheAttemptsAndTheDueTime() {
    ResumeEntry entry = entry("a");
    log().remember(entry, Duration.ZERO, LONG);
    assertThat(log().failed(entry, LONG)).isTrue();
    log().remember(entry, Duration.ZERO, LONG);
    assertThat(takeAll()).isEmpty();
    assertThat(log().abandon(entry)).isTrue();
    assertThat(log().abandoned(operation, 10))
        .singleElement()
        .satisfies(e -> assertThat(e.attempts()).isEqualTo(2));
  }

  @Test
  void aFailedAttemptIsCountedAndTheEntryWaitsItsDelay() {
    ResumeEntry entry = entry("a");
    log().remember(entry, Duration.ZERO, LONG);
    assertThat(log().failed(entry, tick())).isTrue();
    assertThat(takeAll()).isEmpty();
    time().pass(tick().multipliedBy(2));
    assertThat(log().takeDue(operation, LONG, 10))
        .singleElement()
        .satisfies(e -> assertThat(e.attempts()).isEqualTo(1));
    assertThat(log().failed(entry, Duration.ZERO)).isTrue();
    assertThat(takeAll()).singleElement().satisfies(e -> assertThat(e.attempts()).isEqualTo(2));
  }

  @Test
  void anAbandonedEntryIsListedAndNeverTakenUntilReopened() {
    ResumeEntry entry = entry("a");
    ResumeEntry other = entry("b");
    log().remember(entry, Duration.ZERO, LONG);
    log().remember(other, Duration.ZERO, LONG);
    log().failed(entry, Duration.ZERO);
    assertThat(log().abandon(entry)).isTrue();
    assertThat(log().abandon(entry)).isFalse();
    assertThat(log().failed(entry, Duration.ZERO)).isFalse();
    assertThat(takeAll()).containsExactly(other);
    List<ResumeEntry> abandoned = log().abandoned(operation, 10);
    assertThat(abandoned)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.key()).isEqualTo(entry.key());
              assertThat(e.abandoned()).isTrue();
              assertThat(e.attempts()).isEqualTo(2);
            });
    assertThat(log().reopen(other)).isFalse();
    assertThat(log().reopen(abandoned.get(0))).isTrue();
    assertThat(log().abandoned(operation, 10)).isEmpty();
    assertThat(takeAll()).containsExactly(entry);
  }

  @Test
  void aForgottenEntryIsGoneForEveryCall() {
    ResumeEntry entry = entry("a");
    log().remember(entry, Duration.ZERO, LONG);
    assertThat(log().forget(entry)).isTrue();
    assertThat(log().forget(entry)).isFalse();
    assertThat(takeAll()).isEmpty();
    assertThat(log().failed(entry, Duration.ZERO)).isFalse();
    assertThat(log().abandon(entry)).isFalse();
    assertThat(log().reopen(entry)).isFalse();
    log().remember(other(entry), Duration.ZERO, LONG);
    assertThat(log().abandon(other(entry))).isTrue();
    assertThat(log().forget(other(entry))).isTrue();
    assertThat(log().abandoned(operation, 10)).isEmpty();
  }

  private ResumeEntry other(ResumeEntry entry) {
    return entry(entry.key(), "other input");
  }

  @Test
  void aLaterRequestOfTheKeyReplacesTheEntryAndChangesMeantForTheEarlierOneTouchNothing() {
    IdempotencyKey key = IdempotencyKey.of(operation, "shared");
    ResumeEntry first = entry(key, "first");
    ResumeEntry second = entry(key, "second");
    log().remember(first, Duration.ZERO, LONG);
    log().failed(first, Duration.ZERO);
    log().abandon(first);

    log().remember(second, Duration.ZERO, LONG);

    assertThat(log().abandoned(operation, 10)).isEmpty();
    assertThat(log().forget(first)).isFalse();
    assertThat(log().failed(first, Duration.ZERO)).isFalse();
    assertThat(log().abandon(first)).isFalse();
    assertThat(log().reopen(first)).isFalse();
    assertThat(takeAll())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e).isEqualTo(second);
              assertThat(e.attempts()).as("a new request starts its count").isZero();
            });
    assertThat(log().forget(second)).isTrue();
  }

  @Test
  void operationsKeepTheirEntriesApart() {
    IdempotencyKey key = IdempotencyKey.of(operation, "shared");
    ResumeEntry here = entry(key, "first");
    ResumeEntry elsewhere =
        ResumeEntry.of(operation + "-other", key, here.fingerprint(), here.input());
    log().remember(here, Duration.ZERO, LONG);
    log().remember(elsewhere, Duration.ZERO, LONG);
    assertThat(takeAll()).containsExactly(here);
    assertThat(log().takeDue(operation + "-other", LONG, 10)).containsExactly(elsewhere);
    assertThat(log().forget(elsewhere)).isTrue();
    assertThat(log().forget(here)).isTrue();
  }

  @Test
  void takesTheEarliestDueFirstAndNoMoreThanTheLimit() {
    ResumeEntry later = entry("later");
    ResumeEntry early = entry("early");
    ResumeEntry earliest = entry("earliest");
    log().remember(later, Duration.ZERO, LONG);
    log().failed(later, tick().dividedBy(3));
    log().remember(early, Duration.ZERO, LONG);
    log().failed(early, tick().dividedBy(6));
    log().remember(earliest, Duration.ZERO, LONG);
    time().pass(tick());
    assertThat(log().takeDue(operation, LONG, 2)).containsExactly(earliest, withAttempt(early));
    assertThat(log().takeDue(operation, LONG, 2)).containsExactly(withAttempt(later));
  }

  private static ResumeEntry withAttempt(ResumeEntry e) {
    return new ResumeEntry(e.operation(), e.key(), e.fingerprint(), e.input(), 1, false);
  }

  @Test
  void anExpiredEntryIsNeitherTakenNorListedAndIsWrittenAfresh() {
    ResumeEntry entry = entry("a");
    ResumeEntry abandoned = entry("b");
    log().remember(entry, Duration.ZERO, tick());
    log().remember(abandoned, Duration.ZERO, tick());
    log().failed(entry, Duration.ZERO);
    log().abandon(abandoned);
    time().pass(tick().multipliedBy(2));
    assertThat(takeAll()).isEmpty();
    assertThat(log().abandoned(operation, 10)).isEmpty();
    assertThat(log().reopen(abandoned)).isFalse();
    log().remember(entry, Duration.ZERO, LONG);
    assertThat(takeAll()).containsExactly(entry);
  }

  @Test
  void purgingDeletesExpiredEntriesOnly() {
    ResumeEntry expiring = entry("a");
    ResumeEntry kept = entry("b");
    log().remember(expiring, Duration.ZERO, tick());
    log().remember(kept, Duration.ZERO, LONG);
    time().pass(tick().multipliedBy(2));
    int purged = 0;
    for (int round = 0; round < 1000; round++) {
      int n = log().purgeExpired(1000);
      purged += n;
      if (n == 0) {
        break;
      }
    }
    if (!expiresByItself()) {
      assertThat(purged).isPositive();
    }
    assertThat(log().forget(expiring)).isFalse();
    assertThat(takeAll()).containsExactly(kept);
  }

  @Test
  void completersRacingForDueEntriesTakeEachOnce() throws Exception {
    int entries = 40;
    for (int i = 0; i < entries; i++) {
      log().remember(entry("e" + i), Duration.ZERO, LONG);
    }
    int threads = 6;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    Set<String> seen = ConcurrentHashMap.newKeySet();
    List<Future<Integer>> takers = new ArrayList<>();
    try {
      for (int t = 0; t < threads; t++) {
        takers.add(
            pool.submit(
                () -> {
                  start.await();
                  int taken = 0;
                  for (int round = 0; round < 20; round++) {
                    for (ResumeEntry e : log().takeDue(operation, LONG, 3)) {
                      seen.add(e.id());
                      taken++;
                    }
                  }
                  return taken;
                }));
      }
      start.countDown();
      int total = 0;
      for (Future<Integer> f : takers) {
        total += f.get(60, TimeUnit.SECONDS);
      }
      assertThat(total).isEqualTo(entries);
      assertThat(seen).hasSize(entries);
    } finally {
      pool.shutdownNow();
    }
  }
}
