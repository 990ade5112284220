package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class FingerprintTest {

  @Test
  void lengthPrefixesKeepPartsApart() {
    assertThat(Fingerprint.of("ab", "c")).isNotEqualTo(Fingerprint.of("a", "bc"));
    assertThat(Fingerprint.of("a", "b")).isEqualTo(Fingerprint.of("a", "b"));
  }

  @Test
  void rawBodiesAreComparedByteForByte() {
    byte[] body = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);
    assertThat(Fingerprint.of("POST /x", body)).isEqualTo(Fingerprint.of("POST /x", body.clone()));
    assertThat(Fingerprint.of("POST /x", body)).isNotEqualTo(Fingerprint.of("POST /y", body));
  }

  @Test
  void noneMatchesEverything() {
    Fingerprint a = Fingerprint.of("a");
    assertThat(Fingerprint.NONE.matches(a)).isTrue();
    assertThat(a.matches(Fingerprint.NONE)).isTrue();
    assertThat(a.matches(Fingerprint.of("b"))).isFalse();
  }

  @Test
  void refusesValuesThatAreNotDigests() {
    assertThatThrownBy(() -> new Fingerprint("xyz")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Fingerprint(null)).isInstanceOf(IllegalArgumentException.class);
  }
}
