package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ResultCodecTest {

  @Test
  void utf8KeepsNullEmptyAndTextApart() {
    ResultCodec<String> codec = ResultCodec.utf8();
    for (String value : new String[] {null, "", "N", "S", "订单 ✓"}) {
      assertThat(codec.decode(codec.encode(value))).isEqualTo(value);
    }
  }

  @Test
  void failuresReplayAsTheirTypeAndMessage() {
    ResultCodec<String> codec = ResultCodec.utf8();
    RuntimeException replayed =
        codec.decodeFailure(codec.encodeFailure(new IllegalStateException("out of stock\nline 2")));
    assertThat(replayed).isInstanceOf(ReplayedFailureException.class);
    assertThat(((ReplayedFailureException) replayed).originalType())
        .isEqualTo(IllegalStateException.class.getName());
    assertThat(replayed).hasMessage("out of stock\nline 2");
  }

  @Test
  void aFailureWithoutMessageReplaysWithAnEmptyOne() {
    RuntimeException replayed =
        ResultCodec.bytes()
            .decodeFailure(ResultCodec.bytes().encodeFailure(new RuntimeException()));
    assertThat(replayed).hasMessage("");
  }
}
