package dev.idem.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.state.StateMachine;
import dev.idem.core.state.StateStore;
import dev.idem.core.state.StateTransitions;
import dev.idem.core.state.TransitionResult;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The rules of {@link StateStore} on a backend: reads, the single guarded write, and a race in
 * which exactly one caller moves a record. A backend supplies a store of {@link PaymentStatus} by
 * string id and a way to create a record in a given status (the SPI itself never creates one).
 */
public abstract class StateStoreContract {

  /** The statuses of the article's payment record. */
  public enum PaymentStatus {
    PENDING,
    PROCESSING,
    SUCCESS,
    FAILED
  }

  private static final StateMachine<PaymentStatus> PAYMENTS =
      StateMachine.builder(PaymentStatus.class)
          .allow(PaymentStatus.PENDING, PaymentStatus.PROCESSING)
          .allow(PaymentStatus.PROCESSING, PaymentStatus.SUCCESS, PaymentStatus.FAILED)
          .build();

  /** The store under test. */
  protected abstract StateStore<String, PaymentStatus> store();

  /** Creates the record {@code id} in {@code status}. */
  protected abstract void create(String id, PaymentStatus status);

  private String newRecord(PaymentStatus status) {
    String id = "pay-" + UUID.randomUUID();
    create(id, status);
    return id;
  }

  @Test
  void findsTheCurrentStatusAndNothingForAnUnknownId() {
    String id = newRecord(PaymentStatus.PENDING);
    assertThat(store().find(id)).contains(PaymentStatus.PENDING);
    assertThat(store().find("pay-" + UUID.randomUUID())).isEmpty();
  }

  @Test
  void movesARecordOnlyFromTheExpectedStatus() {
    String id = newRecord(PaymentStatus.PENDING);
    assertThat(store().compareAndSet(id, PaymentStatus.PROCESSING, PaymentStatus.SUCCESS))
        .isFalse();
    assertThat(store().find(id)).contains(PaymentStatus.PENDING);
    assertThat(store().compareAndSet(id, PaymentStatus.PENDING, PaymentStatus.PROCESSING)).isTrue();
    assertThat(store().find(id)).contains(PaymentStatus.PROCESSING);
    assertThat(store().compareAndSet(id, PaymentStatus.PENDING, PaymentStatus.PROCESSING))
        .isFalse();
  }

  @Test
  void neverCreatesAMissingRecord() {
    String id = "pay-" + UUID.randomUUID();
    assertThat(store().compareAndSet(id, PaymentStatus.PENDING, PaymentStatus.PROCESSING))
        .isFalse();
    assertThat(store().find(id)).isEmpty();
  }

  @Test
  void answersEveryTransitionResultThroughTheMachine() {
    StateTransitions<String, PaymentStatus> payments = PAYMENTS.on(store());
    String id = newRecord(PaymentStatus.PENDING);
    assertThat(payments.transition(id, PaymentStatus.PENDING, PaymentStatus.PROCESSING))
        .isInstanceOf(TransitionResult.Transitioned.class);
    assertThat(payments.transition(id, PaymentStatus.PENDING, PaymentStatus.PROCESSING))
        .isInstanceOf(TransitionResult.AlreadyThere.class);
    assertThat(payments.transition(id, PaymentStatus.PENDING, PaymentStatus.SUCCESS))
        .isInstanceOf(TransitionResult.Illegal.class);
    payments.transition(id, PaymentStatus.PROCESSING, PaymentStatus.FAILED);
    assertThat(payments.transition(id, PaymentStatus.PROCESSING, PaymentStatus.SUCCESS))
        .isInstanceOf(TransitionResult.Conflict.class);
    assertThat(payments.transition("pay-" + UUID.randomUUID(), PaymentStatus.PROCESSING))
        .isInstanceOf(TransitionResult.NotFound.class);
  }

  @Test
  void exactlyOneOfManyRacingCallersWinsAnOutcome() throws Exception {
    String id = newRecord(PaymentStatus.PROCESSING);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Boolean>> calls = new ArrayList<>();
    try {
      for (int i = 0; i < 16; i++) {
        PaymentStatus to = i % 2 == 0 ? PaymentStatus.SUCCESS : PaymentStatus.FAILED;
        calls.add(
            pool.submit(
                () -> {
                  go.await();
                  return store().compareAndSet(id, PaymentStatus.PROCESSING, to);
                }));
      }
      go.countDown();
      int wins = 0;
      for (Future<Boolean> call : calls) {
        wins += call.get(30, TimeUnit.SECONDS) ? 1 : 0;
      }
      assertThat(wins).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
  }
}
