package dev.idem.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The table of hints that lets a replay skip the claim; the reads from Redis are the contracts'.
 */
class CompletedReplaysTest {

  private static final long NOW = 1_000_000;
  private static final long LATER = NOW + 3_600_000;

  // the table alone: nothing here reads from Redis or the clock
  private final CompletedReplays hints = new CompletedReplays(null, Clock.systemUTC());

  @Test
  void findsWhatItRemembersUntilItEnds() {
    hints.remember("a", NOW + 10, NOW);

    assertThat(hints.find("a", NOW)).isNotNegative();
    assertThat(hints.find("a", NOW + 10)).isNegative();
    assertThat(hints.find("b", NOW)).isNegative();
  }

  @Test
  void forgetsOnlyTheDigestItWasAskedTo() {
    hints.remember("a", LATER, NOW);
    int slot = hints.find("a", NOW);

    hints.forget(slot, "other");
    assertThat(hints.find("a", NOW)).isEqualTo(slot);

    hints.forget(slot, "a");
    assertThat(hints.find("a", NOW)).isNegative();
  }

  @Test
  void twoDigestsInUseShareAPairWithAnIdleOneThatEndsLater() {
    List<String> sharing = digestsOfOnePair(3);
    String idle = sharing.get(0);
    String first = sharing.get(1);
    String second = sharing.get(2);
    hints.remember(idle, LATER + 1, NOW);
    hints.remember(first, LATER, NOW);

    // The replacement must not be the hint that was just used, even though it ends first.
    assertThat(hints.find(first, NOW)).isNotNegative();
    hints.remember(second, LATER, NOW);

    assertThat(hints.find(first, NOW)).isNotNegative();
    assertThat(hints.find(second, NOW)).isNotNegative();
    assertThat(hints.find(idle, NOW)).isNegative();
  }

  @Test
  void anEndedHintIsReplacedBeforeALiveOne() {
    List<String> sharing = digestsOfOnePair(3);
    hints.remember(sharing.get(0), NOW + 5, NOW);
    hints.remember(sharing.get(1), LATER, NOW);
    hints.find(sharing.get(0), NOW);

    hints.remember(sharing.get(2), LATER, NOW + 5);

    assertThat(hints.find(sharing.get(1), NOW + 5)).isNotNegative();
    assertThat(hints.find(sharing.get(2), NOW + 5)).isNotNegative();
  }

  @Test
  void aDigestHeldInTheSecondSlotIsUpdatedThereNotCopiedIntoAnEndedFirst() {
    List<String> sharing = digestsOfOnePair(2);
    hints.remember(sharing.get(0), NOW + 5, NOW);
    hints.remember(sharing.get(1), LATER, NOW);
    int second = hints.find(sharing.get(1), NOW);

    hints.remember(sharing.get(1), LATER + 1, NOW + 5);
    hints.forget(second, sharing.get(1));

    assertThat(hints.find(sharing.get(1), NOW + 5)).isNegative();
  }

  @Test
  void rememberingAgainUpdatesTheEndInPlace() {
    hints.remember("a", NOW + 5, NOW);
    hints.remember("a", LATER, NOW);

    assertThat(hints.find("a", NOW + 10)).isNotNegative();
  }

  private static List<String> digestsOfOnePair(int count) {
    List<String> found = new ArrayList<>();
    int pair = CompletedReplays.pair("seed");
    for (int i = 0; found.size() < count; i++) {
      String digest = "digest-" + i;
      if (CompletedReplays.pair(digest) == pair) {
        found.add(digest);
      }
    }
    return found;
  }
}
