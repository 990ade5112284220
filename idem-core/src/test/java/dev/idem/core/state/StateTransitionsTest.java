package dev.idem.core.state;

import static dev.idem.core.state.Status.FAILED;
import static dev.idem.core.state.Status.PENDING;
import static dev.idem.core.state.Status.PROCESSING;
import static dev.idem.core.state.Status.SUCCESS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import dev.idem.core.state.TransitionResult.AlreadyThere;
import dev.idem.core.state.TransitionResult.Conflict;
import dev.idem.core.state.TransitionResult.Illegal;
import dev.idem.core.state.TransitionResult.NotFound;
import dev.idem.core.state.TransitionResult.Transitioned;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class StateTransitionsTest {

  private final RacingStateStore store = new RacingStateStore();
  private final StateTransitions<String, Status> transitions = Status.machine().on(store);

  @Nested
  class FromAnExpectedState {

    @Test
    void movesTheRecordAndReportsTransitioned() {
      store.records.put("order-1", PENDING);

      assertThat(transitions.transition("order-1", PENDING, PROCESSING))
          .isEqualTo(new Transitioned<>(PENDING, PROCESSING));
      assertThat(store.records).containsEntry("order-1", PROCESSING);
    }

    @Test
    void reportsARepeatAsAlreadyThereWithoutWriting() {
      store.records.put("order-1", PROCESSING);

      assertThat(transitions.transition("order-1", PENDING, PROCESSING))
          .isEqualTo(new AlreadyThere<>(PROCESSING));
      assertThat(store.records).containsEntry("order-1", PROCESSING);
    }

    @Test
    void refusesAnUndeclaredTransitionWithoutTouchingTheStore() {
      store.records.put("order-1", PENDING);
      store.beforeNextWrite(
          records -> {
            throw new AssertionError("an illegal transition must not write");
          });

      assertThat(transitions.transition("order-1", PENDING, SUCCESS))
          .isEqualTo(new Illegal<>(PENDING, SUCCESS));
      assertThat(store.records).containsEntry("order-1", PENDING);
    }

    @Test
    void reportsConflictWithTheCurrentStateWhenSomeoneElseMovedTheRecord() {
      store.records.put("order-1", FAILED);

      assertThat(transitions.transition("order-1", PROCESSING, SUCCESS))
          .isEqualTo(new Conflict<>(PROCESSING, SUCCESS, FAILED));
      assertThat(store.records).containsEntry("order-1", FAILED);
    }

    @Test
    void reportsNotFoundForAMissingRecord() {
      assertThat(transitions.transition("order-1", PENDING, PROCESSING))
          .isEqualTo(new NotFound<>());
      assertThat(store.records).isEmpty();
    }
  }

  @Nested
  class FromWhateverStateTheRecordIsIn {

    @Test
    void movesTheRecordFromItsCurrentState() {
      store.records.put("order-1", PROCESSING);

      assertThat(transitions.transition("order-1", FAILED))
          .isEqualTo(new Transitioned<>(PROCESSING, FAILED));
      assertThat(store.records).containsEntry("order-1", FAILED);
    }

    @Test
    void reportsAlreadyThereWhenTheRecordIsInTheTarget() {
      store.records.put("order-1", SUCCESS);

      assertThat(transitions.transition("order-1", SUCCESS)).isEqualTo(new AlreadyThere<>(SUCCESS));
    }

    @Test
    void reportsIllegalWithTheCurrentStateAsTheSource() {
      store.records.put("order-1", SUCCESS);

      assertThat(transitions.transition("order-1", PENDING))
          .isEqualTo(new Illegal<>(SUCCESS, PENDING));
      assertThat(store.records).containsEntry("order-1", SUCCESS);
    }

    @Test
    void reportsNotFoundForAMissingRecord() {
      assertThat(transitions.transition("order-1", PROCESSING)).isEqualTo(new NotFound<>());
    }

    @Test
    void reportsAlreadyThereWhenARivalMadeTheSameMoveFirst() {
      store.records.put("order-1", PENDING);
      store.beforeNextWrite(records -> records.put("order-1", PROCESSING));

      assertThat(transitions.transition("order-1", PROCESSING))
          .isEqualTo(new AlreadyThere<>(PROCESSING));
    }

    @Test
    void reportsConflictWhenARivalMovedTheRecordElsewhereFirst() {
      store.records.put("order-1", PROCESSING);
      store.beforeNextWrite(records -> records.put("order-1", FAILED));

      assertThat(transitions.transition("order-1", SUCCESS))
          .isEqualTo(new Conflict<>(PROCESSING, SUCCESS, FAILED));
      assertThat(store.records).containsEntry("order-1", FAILED);
    }

    @Test
    void reportsNotFoundWhenTheRecordVanishedBeforeTheWrite() {
      store.records.put("order-1", PENDING);
      store.beforeNextWrite(records -> records.remove("order-1"));

      assertThat(transitions.transition("order-1", PROCESSING)).isEqualTo(new NotFound<>());
    }

    @Test
    void doesNotRetryAMoveThatWasJudgedAgainstAStaleState() {
      // FAILED -> PENDING is allowed, but the caller saw PROCESSING, from which it is not.
      store.records.put("order-1", PROCESSING);
      store.beforeNextWrite(records -> records.put("order-1", SUCCESS));

      assertThat(transitions.transition("order-1", FAILED))
          .isEqualTo(new Conflict<>(PROCESSING, FAILED, SUCCESS));
      assertThat(store.records).containsEntry("order-1", SUCCESS);
    }
  }

  @Test
  void countsOnlyTransitionedAndAlreadyThereAsSuccess() {
    assertThat(new Transitioned<>(PENDING, PROCESSING).isSuccess()).isTrue();
    assertThat(new AlreadyThere<>(PROCESSING).isSuccess()).isTrue();
    assertThat(new Illegal<>(PENDING, SUCCESS).isSuccess()).isFalse();
    assertThat(new Conflict<>(PROCESSING, SUCCESS, FAILED).isSuccess()).isFalse();
    assertThat(new NotFound<Status>().isSuccess()).isFalse();
  }

  @Test
  void countsOnlyTransitionedAsAChange() {
    assertThat(new Transitioned<>(PENDING, PROCESSING).changed()).isTrue();
    assertThat(new AlreadyThere<>(PROCESSING).changed()).isFalse();
    assertThat(new Illegal<>(PENDING, SUCCESS).changed()).isFalse();
    assertThat(new Conflict<>(PROCESSING, SUCCESS, FAILED).changed()).isFalse();
    assertThat(new NotFound<Status>().changed()).isFalse();
  }

  @Test
  void rejectsNullArguments() {
    assertThatNullPointerException().isThrownBy(() -> transitions.transition(null, PENDING));
    assertThatNullPointerException().isThrownBy(() -> transitions.transition("order-1", null));
    assertThatNullPointerException()
        .isThrownBy(() -> transitions.transition("order-1", null, PENDING));
    assertThatNullPointerException().isThrownBy(() -> Status.machine().on(null));
    assertThatNullPointerException().isThrownBy(() -> new AlreadyThere<Status>(null));
  }
}
