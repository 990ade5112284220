package dev.idem.spring.messaging.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.Deferral;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.PendingOutcome;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A batch's claims are all settled whatever fails on the way: a claim left unsettled would keep its
 * key in progress, renewed, as long as the process lives.
 */
class HeldClaimsTest {

  private final List<String> settled = new ArrayList<>();

  private PendingOutcome outcome(String name, boolean fails) {
    return new PendingOutcome() {
      @Override
      public IdempotencyKey key() {
        return IdempotencyKey.of("held", name);
      }

      @Override
      public boolean complete() {
        settled.add("completed " + name);
        return true;
      }

      @Override
      public void release() {
        if (fails) {
          throw new IllegalStateException("store down releasing " + name);
        }
        settled.add("released " + name);
      }

      @Override
      public void keep() {
        settled.add("kept " + name);
      }
    };
  }

  @Test
  void aReleaseThatFailsStopsNeitherTheOtherReleasesNorTheCompletions() {
    assertThatThrownBy(
            () ->
                HeldClaims.settle(
                    List.of(outcome("done", false)),
                    List.of(outcome("first", true), outcome("second", false)),
                    Deferral.NONE))
        .hasMessage("store down releasing first");

    assertThat(settled).containsExactly("released second", "completed done");
  }

  @Test
  void anOutcomeTheDeferralRefusesIsReleasedAndTheOthersAreHeld() {
    List<String> held = new ArrayList<>();
    Deferral refusingOne =
        outcome -> {
          if (outcome.key().value().equals("refused")) {
            throw new IllegalStateException("no transaction to hold it in");
          }
          held.add(outcome.key().value());
        };

    assertThatThrownBy(
            () ->
                HeldClaims.settle(
                    List.of(outcome("refused", false), outcome("after", false)),
                    List.of(),
                    refusingOne))
        .hasMessage("no transaction to hold it in");

    assertThat(settled).containsExactly("released refused");
    assertThat(held).containsExactly("after");
  }
}
