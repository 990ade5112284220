package dev.idem.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.KeyReuseException;
import dev.idem.core.memory.InMemoryIdempotencyStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

class MicrometerIdempotencyListenerTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @Test
  void countsEachOutcomeByOperationWithoutTheCaller() {
    try (Idempotency engine =
        Idempotency.builder(new InMemoryIdempotencyStore())
            .listener(new MicrometerIdempotencyListener(registry))
            .build()) {
      for (String user : new String[] {"alice", "bob"}) {
        IdempotencyKey key = IdempotencyKey.of("orders.create|" + user, "k1");
        engine.call(key, Fingerprint.of("a")).run(ctx -> "x");
        engine.call(key, Fingerprint.of("a")).run(ctx -> "x");
        assertThatThrownBy(() -> engine.call(key, Fingerprint.of("b")).run(ctx -> "y"))
            .isInstanceOf(KeyReuseException.class);
      }
    }
    assertThat(count("executed")).isEqualTo(2);
    assertThat(count("replayed")).isEqualTo(2);
    assertThat(count("mismatch")).isEqualTo(2);
    assertThat(registry.find(MicrometerIdempotencyListener.METER).counters()).hasSize(3);
  }

  private double count(String outcome) {
    return registry
        .get(MicrometerIdempotencyListener.METER)
        .tag("operation", "orders.create")
        .tag("outcome", outcome)
        .counter()
        .count();
  }
}
