package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.memory.InMemoryIdempotencyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;

/** {@link ExecutionContext#current()}: the running work's context on its thread, and only there. */
class CurrentContextTest {

  private final Idempotency engine = Idempotency.builder(new InMemoryIdempotencyStore()).build();
  private final IdempotencyKey key = IdempotencyKey.of("orders|alice", "k1");

  @Test
  void isTheWorksContextWhileItRunsTheStepsInsideAStepAndNothingAfter() {
    List<Optional<ExecutionContext>> seen = new ArrayList<>();
    assertThat(ExecutionContext.current()).isEmpty();

    engine
        .call(key, Fingerprint.NONE)
        .run(
            ctx -> {
              seen.add(ExecutionContext.current());
              ctx.step(
                  "charge",
                  step -> {
                    seen.add(ExecutionContext.current());
                    return "charged";
                  });
              seen.add(ExecutionContext.current());
              return "done";
            });

    assertThat(seen.get(0)).hasValueSatisfying(c -> assertThat(c.key()).isEqualTo(key));
    assertThat(seen.get(1))
        .hasValueSatisfying(c -> assertThat(c.key().stepPath()).isEqualTo("charge"));
    assertThat(seen.get(2)).hasValueSatisfying(c -> assertThat(c.key()).isEqualTo(key));
    assertThat(ExecutionContext.current()).isEmpty();
  }

  @Test
  void isClearedAfterWorkThatThrows() {
    assertThatThrownBy(
            () ->
                engine
                    .call(key, Fingerprint.NONE)
                    .run(
                        ctx -> {
                          throw new IllegalStateException("failed");
                        }))
        .isInstanceOf(IllegalStateException.class);

    assertThat(ExecutionContext.current()).isEmpty();
  }

  @Test
  void callWithinMakesAHeldWorksContextCurrentAndRefusesOneTheEngineDidNotMake() throws Exception {
    ExecutionContext[] held = new ExecutionContext[1];
    engine
        .call(key, Fingerprint.NONE)
        .run(
            ctx -> {
              held[0] = ctx;
              return "claimed";
            });

    assertThat(ExecutionContext.callWithin(held[0], ExecutionContext::current)).contains(held[0]);
    assertThat(ExecutionContext.current()).isEmpty();
    assertThatThrownBy(
            () -> ExecutionContext.callWithin(new OwnContext(key), ExecutionContext::current))
        .isInstanceOf(IllegalArgumentException.class);
  }

  // a context the engine did not hand out
  private record OwnContext(IdempotencyKey key) implements ExecutionContext {
    @Override
    public long fence() {
      return 0;
    }

    @Override
    public boolean isLeaseLost() {
      return false;
    }

    @Override
    public CompletionStage<Void> leaseLost() {
      return new CompletableFuture<>();
    }
  }
}
