package dev.idem.core.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.Idempotency;
import dev.idem.core.InvalidKeyException;
import dev.idem.core.consumer.IdempotentConsumer.Delivery;
import dev.idem.core.memory.InMemoryIdempotencyStore;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class IdempotentConsumerTest {

  private final Idempotency engine = Idempotency.builder(new InMemoryIdempotencyStore()).build();
  private final AtomicInteger points = new AtomicInteger();

  @AfterEach
  void close() {
    engine.close();
  }

  @Test
  void appliesAMessageDeliveredTwiceOnce() {
    IdempotentConsumer loyalty = new IdempotentConsumer(engine, "loyalty");
    assertThat(loyalty.process("msg-1", ctx -> award(10))).isEqualTo(Delivery.PROCESSED);
    assertThat(loyalty.process("msg-1", ctx -> award(10))).isEqualTo(Delivery.DUPLICATE);
    assertThat(points).hasValue(10);
  }

  @Test
  void aFailedHandlingLetsTheRedeliveryRunAgain() {
    IdempotentConsumer loyalty = new IdempotentConsumer(engine, "loyalty");
    assertThatThrownBy(
            () ->
                loyalty.process(
                    "msg-2",
                    ctx -> {
                      throw new IllegalStateException("database down");
                    }))
        .isInstanceOf(IllegalStateException.class);
    assertThat(loyalty.process("msg-2", ctx -> award(5))).isEqualTo(Delivery.PROCESSED);
    assertThat(points).hasValue(5);
  }

  @Test
  void eachGroupProcessesTheMessageOnce() {
    new IdempotentConsumer(engine, "loyalty").process("msg-3", ctx -> award(1));
    new IdempotentConsumer(engine, "mailer").process("msg-3", ctx -> award(1));
    new IdempotentConsumer(engine, "mailer").process("msg-3", ctx -> award(1));
    assertThat(points).hasValue(2);
  }

  @Test
  void longOrNonAsciiMessageIdsAreHashedIntoValidKeys() {
    IdempotentConsumer loyalty = new IdempotentConsumer(engine, "loyalty");
    String longId = "x".repeat(1000);
    String unicodeId = "订单-42 with spaces";
    assertThat(loyalty.keyOf(longId).value()).startsWith("sha256:").hasSize(71);
    assertThat(loyalty.keyOf(unicodeId).value()).startsWith("sha256:");
    assertThat(loyalty.keyOf("sha256:abc").value()).isNotEqualTo("sha256:abc");
    loyalty.process(unicodeId, ctx -> award(1));
    loyalty.process(unicodeId, ctx -> award(1));
    assertThat(points).hasValue(1);
  }

  @Test
  void refusesAMessageWithoutIdAndABlankGroup() {
    IdempotentConsumer loyalty = new IdempotentConsumer(engine, "loyalty");
    assertThatThrownBy(() -> loyalty.process(null, ctx -> award(1)))
        .isInstanceOf(InvalidKeyException.class);
    assertThatThrownBy(() -> new IdempotentConsumer(engine, " "))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(points).hasValue(0);
  }

  private Void award(int n) {
    points.addAndGet(n);
    return null;
  }
}
