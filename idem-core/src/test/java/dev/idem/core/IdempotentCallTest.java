package dev.idem.core;

import static dev.idem.core.store.RecordState.COMPLETED;
import static dev.idem.core.store.RecordState.IN_PROGRESS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.memory.InMemoryIdempotencyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** {@link IdempotentCall}: a value that describes one call, run as often as it is sent. */
class IdempotentCallTest {

  private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();
  private final Idempotency engine = Idempotency.builder(store).build();
  private final IdempotencyKey key = IdempotencyKey.of("payments|alice", "k1");

  @Test
  void aCallDescribedOnceRunsOnceAndEachRepeatGetsTheFirstAnswer() {
    IdempotentCall<String> pay = engine.call(key, Fingerprint.of("pay", "10 EUR"));
    List<String> charged = new ArrayList<>();
    Work<String, RuntimeException> charge =
        ctx -> {
          charged.add("10 EUR");
          return "receipt-" + charged.size();
        };

    assertThat(pay.runWithStatus(charge)).isEqualTo(new Executed<>("receipt-1", false));
    assertThat(pay.runWithStatus(charge)).isEqualTo(new Executed<>("receipt-1", true));
    assertThat(charged).hasSize(1);
  }

  @Test
  void refiningACallLeavesTheOriginalAsItWas() {
    IdempotentCall<String> plain = engine.call(key, Fingerprint.NONE);
    IdempotencyConfig brief = IdempotencyConfig.custom().retention(Duration.ofSeconds(5)).build();
    IdempotentCall<byte[]> counted = plain.codec(ResultCodec.bytes()).config(brief);

    assertThat(counted.config()).isSameAs(brief);
    assertThat(plain.config()).isSameAs(engine.defaults());
    assertThat(plain.codec()).isNotSameAs(counted.codec());
    assertThat(plain.deferTo(outcome -> {}).deferral().holds()).isTrue();
    assertThat(plain.deferral()).isSameAs(Deferral.NONE);
  }

  @Test
  void workThatEndsLaterHandsItsOutcomeToTheDeferralWhichDecidesWhetherItIsKept() {
    List<PendingOutcome> held = new ArrayList<>();
    Deferral anyThread =
        new Deferral() {
          @Override
          public void hold(PendingOutcome outcome) {
            held.add(outcome);
          }

          @Override
          public boolean holdsFromAnyThread() {
            return true;
          }
        };
    IdempotentCall<String> call = engine.call(key, Fingerprint.NONE).deferTo(anyThread);
    IdempotencyKey other = IdempotencyKey.of("payments|alice", "k2");
    IdempotentCall<String> undone = engine.call(other, Fingerprint.NONE).deferTo(anyThread);

    Executed<String> first =
        call.runAsync(ctx -> CompletableFuture.completedFuture("receipt-1"), Runnable::run).join();
    undone.runAsync(ctx -> CompletableFuture.completedFuture("receipt-2"), Runnable::run).join();

    assertThat(first).isEqualTo(new Executed<>("receipt-1", false));
    assertThat(held).hasSize(2);
    assertThat(store.find(key).orElseThrow().state()).as("held, not stored").isEqualTo(IN_PROGRESS);
    held.get(0).complete();
    held.get(1).release();
    assertThat(store.find(key).orElseThrow().state()).isEqualTo(COMPLETED);
    assertThat(store.find(other)).as("freed").isEmpty();
    assertThat(
            call.runAsync(ctx -> CompletableFuture.completedFuture("again"), Runnable::run).join())
        .isEqualTo(new Executed<>("receipt-1", true));
  }

  @Test
  void workThatEndsLaterCannotHoldItsOutcomeForTheCallersThreadAndClaimsNothing() {
    IdempotentCall<String> held = engine.call(key, Fingerprint.NONE).deferTo(outcome -> {});

    assertThatThrownBy(
            () -> held.runAsync(ctx -> CompletableFuture.completedFuture("x"), Runnable::run))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("bound to the calling thread");
    assertThat(store.find(key)).as("nothing claimed").isEmpty();
  }

  @Test
  void aNullDeferralIsRefusedWhenTheCallIsDescribedNotAfterItsClaim() {
    assertThatThrownBy(() -> engine.call(key, Fingerprint.NONE).deferTo(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("deferral");
    assertThat(store.find(key)).isEmpty();
  }
}
