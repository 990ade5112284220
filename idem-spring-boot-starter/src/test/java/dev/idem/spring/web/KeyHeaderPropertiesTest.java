package dev.idem.spring.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.InvalidKeyException;
import dev.idem.spring.web.internal.HttpRules;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class KeyHeaderPropertiesTest {

  @Property
  void aQuotedKeyAndABareKeyMeanTheSame(@ForAll("keys") String key) {
    String quoted = quoted(key);
    if (!key.startsWith("\"")) {
      assertThat(HttpRules.parseKey(List.of(key))).isEqualTo(key);
    }
    assertThat(HttpRules.parseKey(List.of(quoted))).isEqualTo(key);
    assertThat(HttpRules.parseKey(List.of(" " + quoted + " "))).isEqualTo(key);
  }

  @Property
  void anyHeaderEitherParsesToAValidKeyOrIsRefusedAsInvalid(@ForAll String header) {
    String stripped = header.strip();
    boolean validBare = !stripped.startsWith("\"") && IdempotencyKey.isValidValue(stripped);
    try {
      String key = HttpRules.parseKey(List.of(header));
      assertThat(IdempotencyKey.isValidValue(key)).isTrue();
      if (!stripped.startsWith("\"")) {
        assertThat(key).isEqualTo(stripped);
      }
    } catch (InvalidKeyException e) {
      assertThat(validBare).as("refused a valid bare key: " + e.getMessage()).isFalse();
      assertThat(e.isMissing()).isFalse();
    }
  }

  @Property
  void aBareKeyOfVisibleAsciiIsAcceptedAsItIsAfterStrippingWhiteSpace(
      @ForAll("bareKeys") String key) {
    assertThat(HttpRules.parseKey(List.of(key))).isEqualTo(key);
    assertThat(HttpRules.parseKey(List.of("\t" + key + "  "))).isEqualTo(key);
  }

  @Property
  void theSameKeySentTwiceIsAcceptedAsOneKey(@ForAll("keys") String key) {
    String quoted = quoted(key);
    assertThat(HttpRules.parseKey(List.of(quoted, quoted))).isEqualTo(key);
    if (!key.startsWith("\"")) {
      assertThat(HttpRules.parseKey(List.of(key, quoted))).isEqualTo(key);
    }
  }

  @Property
  void aQuotedKeyWithACharacterOutsideVisibleAsciiOrOverTheLengthIsRefused(
      @ForAll("keys") String key, @ForAll("outsideVisibleAscii") char bad) {
    String withBad = key.substring(0, key.length() / 2) + bad + key.substring(key.length() / 2);
    assertThatThrownBy(() -> HttpRules.parseKey(List.of(quoted(withBad))))
        .isInstanceOf(InvalidKeyException.class);
    String tooLong = key.repeat(IdempotencyKey.MAX_VALUE_LENGTH / key.length() + 1);
    assertThatThrownBy(() -> HttpRules.parseKey(List.of(quoted(tooLong))))
        .isInstanceOf(InvalidKeyException.class);
  }

  /** {@code key} as a structured-field string, with its quotes and backslashes escaped. */
  private static String quoted(String key) {
    return "\"" + key.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  @Property
  void twoDifferentValuesAreRefused(@ForAll("keys") String a, @ForAll("keys") String b) {
    if (a.startsWith("\"") || b.startsWith("\"") || a.equals(b)) {
      return;
    }
    assertThatThrownBy(() -> HttpRules.parseKey(List.of(a, b)))
        .isInstanceOf(InvalidKeyException.class);
  }

  @Provide
  Arbitrary<String> keys() {
    return Arbitraries.strings().withCharRange('!', '~').ofMinLength(1).ofMaxLength(255);
  }

  @Provide
  Arbitrary<String> bareKeys() {
    return keys().filter(k -> !k.startsWith("\""));
  }

  @Provide
  Arbitrary<Character> outsideVisibleAscii() {
    return Arbitraries.oneOf(
        Arbitraries.chars().range('\u0000', '\u001f'),
        Arbitraries.chars().range('\u007f', '\uffff'));
  }
}
