package dev.idem.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.IdempotencyStoreException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RecordValueTest {

  @Test
  void readsBackWhatItWrote() {
    byte[] payload = {'S', '3', ':', 0, (byte) 0xff, '\n'};
    byte[] value =
        new RecordValue.Writer()
            .field('S', "C")
            .field('F', 42)
            .field('B', payload)
            .field('A', "scope: with {braces} and ünïcode")
            .field('P', "")
            .toBytes();
    RecordValue r = RecordValue.parse(value);
    assertThat(r.text('S')).isEqualTo("C");
    assertThat(r.number('F')).isEqualTo(42);
    assertThat(r.bytes('B')).containsExactly(payload);
    assertThat(r.text('A')).isEqualTo("scope: with {braces} and ünïcode");
    assertThat(r.has('P')).isFalse();
    assertThat(r.text('P')).isEmpty();
    assertThat(r.number('E')).isZero();
  }

  @Test
  void aFieldWrittenTwiceCountsAsItsLastValue() {
    byte[] value = "S1:PW1:0F1:3W1:1".getBytes(StandardCharsets.US_ASCII);
    assertThat(RecordValue.parse(value).text('W')).isEqualTo("1");
  }

  @Test
  void anEmptyFieldIsPresentButEmpty() {
    RecordValue r = RecordValue.parse("B0:S1:C".getBytes(StandardCharsets.US_ASCII));
    assertThat(r.bytes('B')).isEmpty();
    assertThat(r.text('S')).isEqualTo("C");
  }

  @Test
  void refusesWhatIsNotARecord() {
    for (String bad :
        new String[] {"S5:P", "s1:P", "S:P", "S1P", "S1x:P", "F1:x", "S99999999999:"}) {
      assertThatThrownBy(
              () -> RecordValue.parse(bad.getBytes(StandardCharsets.US_ASCII)).number('F'))
          .as(bad)
          .isInstanceOf(IdempotencyStoreException.class);
    }
  }

  @Test
  void numbersAreDecimalFromTheValuesOwnBytes() {
    RecordValue r =
        RecordValue.parse(
            "F16:1733550000000123X2:-5U19:9223372036854775807B3:abc"
                .getBytes(StandardCharsets.US_ASCII));
    assertThat(r.number('F')).isEqualTo(1_733_550_000_000_123L);
    assertThat(r.number('X')).isEqualTo(-5);
    assertThat(r.number('U')).isEqualTo(Long.MAX_VALUE);
    byte[] copy = r.bytes('B');
    copy[0] = 'z';
    assertThat(r.text('B')).as("a copy, not the value itself").isEqualTo("abc");
    for (String bad : new String[] {"F0:", "F1:-", "F2:+1", "F19:9223372036854775808", "F2:1 "}) {
      assertThatThrownBy(
              () -> RecordValue.parse(bad.getBytes(StandardCharsets.US_ASCII)).number('F'))
          .as(bad)
          .isInstanceOf(IdempotencyStoreException.class);
    }
  }
}
