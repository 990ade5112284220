package dev.idem.spring.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.InvalidKeyException;
import dev.idem.spring.web.internal.KeyHeader;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class KeyHeaderPropertiesTest {

  @Property
  void aQuotedKeyAndABareKeyMeanTheSame(@ForAll("keys") String key) {
    String quoted = "\"" + key.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    if (!key.startsWith("\"")) {
      assertThat(KeyHeader.parse(List.of(key))).isEqualTo(key);
    }
    assertThat(KeyHeader.parse(List.of(quoted))).isEqualTo(key);
    assertThat(KeyHeader.parse(List.of(" " + quoted + " "))).isEqualTo(key);
  }

  @Property
  void anyHeaderEitherParsesToAValidKeyOrIsRefusedAsInvalid(@ForAll String header) {
    try {
      String key = KeyHeader.parse(List.of(header));
      assertThat(IdempotencyKey.isValidValue(key)).isTrue();
    } catch (InvalidKeyException e) {
      assertThat(e.isMissing()).isFalse();
    }
  }

  @Property
  void twoDifferentValuesAreRefused(@ForAll("keys") String a, @ForAll("keys") String b) {
    if (a.startsWith("\"") || b.startsWith("\"") || a.equals(b)) {
      return;
    }
    assertThatThrownBy(() -> KeyHeader.parse(List.of(a, b)))
        .isInstanceOf(InvalidKeyException.class);
  }

  @Provide
  Arbitrary<String> keys() {
    return Arbitraries.strings().withCharRange('!', '~').ofMinLength(1).ofMaxLength(255);
  }
}
