package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.memory.InMemoryIdempotencyStore;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The engine tells its listeners when each call begins, how it ended, and then that it ended. */
class IdempotencyListenerTest {

  private final List<String> told = new CopyOnWriteArrayList<>();
  private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();
  private final Idempotency engine =
      Idempotency.builder(store)
          .listener(IdempotencyListener.all(List.of(new Recording("a"), new Recording("b"))))
          .build();

  @AfterEach
  void close() {
    engine.close();
  }

  @Test
  void noListenersAreNoneAndOneIsItself() {
    Recording one = new Recording("one");
    assertThat(IdempotencyListener.all(List.of())).isSameAs(IdempotencyListener.NONE);
    assertThat(IdempotencyListener.all(List.of(one))).isSameAs(one);
  }

  @Test
  void eachCallBeginsEndsWithItsOutcomeAndThenEndsInReverseOrder() {
    IdempotencyKey key = IdempotencyKey.of("orders", "k1");
    engine.call(key, Fingerprint.NONE).run(ctx -> "made");
    engine.call(key, Fingerprint.NONE).run(ctx -> "made again");

    assertThat(told)
        .containsExactly(
            "a start k1",
            "b start k1",
            "a EXECUTED k1",
            "b EXECUTED k1",
            "b end k1",
            "a end k1",
            "a start k1",
            "b start k1",
            "a REPLAYED k1",
            "b REPLAYED k1",
            "b end k1",
            "a end k1");
  }

  @Test
  void aClaimRefusedForItsScopesCapIsToldAsStoreFull() {
    IdempotencyConfig capped = IdempotencyConfig.custom().scopeCap(1).build();
    engine
        .call(IdempotencyKey.of("orders|alice", "k3"), Fingerprint.NONE)
        .config(capped)
        .run(ctx -> "made");
    told.clear();
    IdempotencyKey refused = IdempotencyKey.of("orders|alice", "k4");
    assertThatThrownBy(
            () -> engine.call(refused, Fingerprint.NONE).config(capped).run(ctx -> "never"))
        .isInstanceOf(StoreFullException.class);

    assertThat(told).contains("a STORE_FULL k4", "b STORE_FULL k4");
  }

  @Test
  void aCallWhoseWorkThrowsStillEnds() {
    IdempotencyKey key = IdempotencyKey.of("orders", "k2");
    assertThatThrownBy(
            () ->
                engine
                    .call(key, Fingerprint.NONE)
                    .run(
                        ctx -> {
                          throw new IllegalStateException("declined");
                        }))
        .hasMessage("declined");

    assertThat(told).startsWith("a start k2", "b start k2").endsWith("b end k2", "a end k2");
  }

  @Test
  void aListenerThatThrowsKeepsNeitherTheCallNorTheOthersFromGoingOn() {
    IdempotencyListener broken =
        new IdempotencyListener() {
          @Override
          public Runnable onStart(IdempotencyKey key) {
            throw new IllegalStateException("listener bug");
          }

          @Override
          public void onOutcome(IdempotencyKey key, ExecutionOutcome outcome) {
            throw new IllegalStateException("listener bug");
          }
        };
    try (Idempotency withBroken =
        Idempotency.builder(store)
            .listener(IdempotencyListener.all(List.of(broken, new Recording("c"))))
            .build()) {
      String answer =
          withBroken.call(IdempotencyKey.of("orders", "k3"), Fingerprint.NONE).run(c -> "ok");

      assertThat(answer).isEqualTo("ok");
      assertThat(told).containsExactly("c start k3", "c EXECUTED k3", "c end k3");
    }
  }

  private final class Recording implements IdempotencyListener {
    private final String name;

    Recording(String name) {
      this.name = name;
    }

    @Override
    public Runnable onStart(IdempotencyKey key) {
      told.add(name + " start " + key.value());
      return () -> told.add(name + " end " + key.value());
    }

    @Override
    public void onOutcome(IdempotencyKey key, ExecutionOutcome outcome) {
      told.add(name + " " + outcome + " " + key.value());
    }
  }
}
