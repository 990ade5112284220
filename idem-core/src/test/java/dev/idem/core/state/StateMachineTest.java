package dev.idem.core.state;

import static dev.idem.core.state.Status.FAILED;
import static dev.idem.core.state.Status.PENDING;
import static dev.idem.core.state.Status.PROCESSING;
import static dev.idem.core.state.Status.SUCCESS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class StateMachineTest {

  private final StateMachine<Status> machine = Status.machine();

  @Test
  void allowsExactlyTheDeclaredTransitions() {
    assertThat(machine.allows(PENDING, PROCESSING)).isTrue();
    assertThat(machine.allows(PROCESSING, SUCCESS)).isTrue();
    assertThat(machine.allows(PROCESSING, FAILED)).isTrue();
    assertThat(machine.allows(FAILED, PENDING)).isTrue();

    assertThat(machine.allows(PENDING, SUCCESS)).isFalse();
    assertThat(machine.allows(PROCESSING, PENDING)).isFalse();
    assertThat(machine.allows(SUCCESS, FAILED)).isFalse();
    assertThat(machine.allows(PENDING, PENDING)).isFalse();
  }

  @Test
  void listsTheNextStatesOfEachState() {
    assertThat(machine.next(PENDING)).containsExactly(PROCESSING);
    assertThat(machine.next(PROCESSING)).containsExactlyInAnyOrder(SUCCESS, FAILED);
    assertThat(machine.next(SUCCESS)).isEmpty();
  }

  @Test
  void treatsAStateWithoutAWayOutAsTerminal() {
    assertThat(machine.isTerminal(SUCCESS)).isTrue();
    assertThat(machine.isTerminal(FAILED)).isFalse();
    assertThat(machine.isTerminal(PENDING)).isFalse();
  }

  @Test
  void handsOutNextStatesThatCannotBeModified() {
    assertThatThrownBy(() -> machine.next(PENDING).add(SUCCESS))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> machine.next(SUCCESS).add(PENDING))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void isNotChangedByLaterCallsToItsBuilder() {
    StateMachine.Builder<Status> builder =
        StateMachine.builder(Status.class).allow(PENDING, FAILED);
    StateMachine<Status> built = builder.build();

    builder.allow(PENDING, SUCCESS);

    assertThat(built.allows(PENDING, SUCCESS)).isFalse();
    assertThat(builder.build().allows(PENDING, SUCCESS)).isTrue();
  }

  @Test
  void mergesRepeatedDeclarationsForOneSource() {
    StateMachine<Status> merged =
        StateMachine.builder(Status.class)
            .allow(PROCESSING, SUCCESS)
            .allow(PROCESSING, FAILED)
            .allow(PROCESSING, SUCCESS)
            .build();

    assertThat(merged.next(PROCESSING)).containsExactlyInAnyOrder(SUCCESS, FAILED);
    assertThat(merged.type()).isEqualTo(Status.class);
  }

  @Test
  void refusesToDeclareAMoveToTheSameState() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> StateMachine.builder(Status.class).allow(PENDING, PROCESSING, PENDING))
        .withMessage(
            "PENDING cannot be allowed to move to itself; a repeat is reported as AlreadyThere");
  }

  @Test
  void refusesToBuildAMachineWithoutTransitions() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> StateMachine.builder(Status.class).build())
        .withMessage("no transitions declared for Status");
  }

  @Test
  void rejectsNullStates() {
    StateMachine.Builder<Status> builder = StateMachine.builder(Status.class);

    assertThatNullPointerException().isThrownBy(() -> StateMachine.builder(null));
    assertThatNullPointerException().isThrownBy(() -> builder.allow(null, PENDING));
    assertThatNullPointerException().isThrownBy(() -> builder.allow(PENDING, null));
    assertThatNullPointerException()
        .isThrownBy(() -> builder.allow(PENDING, PROCESSING, (Status) null));
    assertThatNullPointerException().isThrownBy(() -> machine.allows(null, PENDING));
    assertThatNullPointerException().isThrownBy(() -> machine.allows(PENDING, null));
    assertThatNullPointerException().isThrownBy(() -> machine.next(null));
    assertThatNullPointerException().isThrownBy(() -> machine.isTerminal(null));
  }
}
