package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.memory.InMemoryIdempotencyStore;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class IdempotentOperationTest {

  private final InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();
  private final Idempotency idempotency = Idempotency.builder(store).build();
  private final AtomicInteger runs = new AtomicInteger();

  @AfterEach
  void close() {
    idempotency.close();
  }

  @Test
  void runsOncePerKeyAndReplaysTheFirstAnswer() {
    IdempotentOperation<String> payments = idempotency.operation("payments");

    assertThat(payments.execute("k-1", "100 EUR", ctx -> "receipt " + runs.incrementAndGet()))
        .isEqualTo("receipt 1");
    assertThat(payments.execute("k-1", "100 EUR", ctx -> "receipt " + runs.incrementAndGet()))
        .isEqualTo("receipt 1");
    assertThat(payments.executeWithStatus("k-1", Fingerprint.of("payments", "100 EUR"), ctx -> "x"))
        .isEqualTo(new Executed<>("receipt 1", true));
    assertThat(runs).hasValue(1);
    assertThat(store.find(IdempotencyKey.of("payments", "k-1"))).isPresent();
  }

  @Test
  void aRepeatWithAnotherRequestIsKeyReuse() {
    IdempotentOperation<String> payments = idempotency.operation("payments");
    payments.execute("k-2", "100 EUR", ctx -> "receipt");

    assertThatThrownBy(() -> payments.execute("k-2", "900 EUR", ctx -> "again"))
        .isInstanceOf(KeyReuseException.class);
    assertThat(payments.execute("k-2", ctx -> "unchecked")).isEqualTo("receipt");
  }

  @Test
  void callersHaveScopesApartAndEachItsOwnCap() {
    IdempotentOperation<String> orders =
        idempotency.operation(
            "orders", ResultCodec.utf8(), IdempotencyConfig.custom().scopeCap(1).build());
    IdempotentOperation<String> alice = orders.forCaller("alice");
    IdempotentOperation<String> bob = orders.forCaller("bob");

    assertThat(alice.scope()).isEqualTo("orders|alice");
    assertThat(alice.execute("k", ctx -> "alice's")).isEqualTo("alice's");
    assertThat(bob.execute("k", ctx -> "bob's")).isEqualTo("bob's");
    assertThatThrownBy(() -> alice.execute("k-other", ctx -> "third"))
        .isInstanceOf(StoreFullException.class);
    assertThat(alice.execute("k", ctx -> "again")).isEqualTo("alice's");
  }

  @Test
  void refusesNamesThatCannotNameAScope() {
    assertThatThrownBy(() -> idempotency.operation(" "))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> idempotency.operation("pay|ments"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'|'");
    assertThatThrownBy(() -> idempotency.operation(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> idempotency.operation("payments").execute("", ctx -> "x"))
        .isInstanceOf(InvalidKeyException.class);
  }
}
