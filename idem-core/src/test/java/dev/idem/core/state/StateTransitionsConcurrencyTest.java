package dev.idem.core.state;

import static dev.idem.core.state.Status.FAILED;
import static dev.idem.core.state.Status.PENDING;
import static dev.idem.core.state.Status.PROCESSING;
import static dev.idem.core.state.Status.SUCCESS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.state.TransitionResult.AlreadyThere;
import dev.idem.core.state.TransitionResult.Conflict;
import dev.idem.core.state.TransitionResult.Transitioned;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class StateTransitionsConcurrencyTest {

  private static final int THREADS = 16;
  private static final int ROUNDS = 200;

  private final ExecutorService pool = Executors.newFixedThreadPool(THREADS);
  private final InMemoryStateStore<Integer, Status> store = new InMemoryStateStore<>();
  private final StateTransitions<Integer, Status> transitions = Status.machine().on(store);

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  /** Starts every task at once behind a latch and returns their results in task order. */
  private List<TransitionResult<Status>> race(List<Callable<TransitionResult<Status>>> tasks)
      throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    List<Future<TransitionResult<Status>>> futures = new ArrayList<>();
    for (Callable<TransitionResult<Status>> task : tasks) {
      futures.add(
          pool.submit(
              () -> {
                start.await();
                return task.call();
              }));
    }
    start.countDown();
    List<TransitionResult<Status>> results = new ArrayList<>();
    for (Future<TransitionResult<Status>> future : futures) {
      results.add(future.get(10, TimeUnit.SECONDS));
    }
    return results;
  }

  @Test
  void exactlyOneOfSixteenRacingRepeatsMovesTheRecordAndTheRestSeeAlreadyThere() throws Exception {
    for (int id = 0; id < ROUNDS; id++) {
      store.put(id, PENDING);
      int record = id;
      List<Callable<TransitionResult<Status>>> tasks = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        // Half name the source state, half only the target: both paths must agree.
        tasks.add(
            t % 2 == 0
                ? () -> transitions.transition(record, PENDING, PROCESSING)
                : () -> transitions.transition(record, PROCESSING));
      }

      List<TransitionResult<Status>> results = race(tasks);

      assertThat(results).filteredOn(TransitionResult::changed).hasSize(1);
      assertThat(results)
          .filteredOn(result -> !result.changed())
          .hasSize(THREADS - 1)
          .allMatch(result -> result.equals(new AlreadyThere<>(PROCESSING)));
      assertThat(results).contains(new Transitioned<>(PENDING, PROCESSING));
      assertThat(store.find(record)).contains(PROCESSING);
    }
  }

  @Test
  void ofSuccessAndFailureRacingFromProcessingExactlyOneWinsAndTheOtherSeesConflict()
      throws Exception {
    for (int id = 0; id < ROUNDS; id++) {
      store.put(id, PROCESSING);
      int record = id;

      List<TransitionResult<Status>> results =
          race(
              List.of(
                  () -> transitions.transition(record, PROCESSING, SUCCESS),
                  () -> transitions.transition(record, PROCESSING, FAILED)));

      Status winner = store.find(record).orElseThrow();
      Status loser = winner == SUCCESS ? FAILED : SUCCESS;
      assertThat(results)
          .containsExactlyInAnyOrder(
              new Transitioned<>(PROCESSING, winner), new Conflict<>(PROCESSING, loser, winner));
    }
  }
}
