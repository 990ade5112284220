package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

class IdempotencyKeyTest {

  @Property
  void acceptsEveryVisibleAsciiValueUpTo255Characters(@ForAll("visibleAscii") String value) {
    IdempotencyKey key = IdempotencyKey.of("orders", value);
    assertThat(key.value()).isEqualTo(value);
    assertThat(key.digest()).hasSize(64).matches("[0-9a-f]+");
  }

  @Property
  void refusesValuesWithAnyCharacterOutsideVisibleAscii(
      @ForAll("visibleAscii") String prefix, @ForAll("notVisibleAscii") char bad) {
    String value = (prefix + bad).substring(Math.max(0, prefix.length() + 1 - 255));
    assertThatThrownBy(() -> IdempotencyKey.of("orders", value))
        .isInstanceOf(InvalidKeyException.class)
        .hasMessageContaining("visible ASCII");
  }

  @Property
  void refusesValuesLongerThan255Characters(
      @ForAll @StringLength(min = 256, max = 2000) String value) {
    assertThatThrownBy(() -> IdempotencyKey.of("orders", value))
        .isInstanceOf(InvalidKeyException.class);
  }

  @Property
  void digestsDifferWhenTheSameTextIsSplitDifferently(@ForAll("visibleAscii") String joined) {
    if (joined.length() < 3) {
      return;
    }
    IdempotencyKey left = IdempotencyKey.of(joined.substring(0, 1), joined.substring(1));
    IdempotencyKey right = IdempotencyKey.of(joined.substring(0, 2), joined.substring(2));
    assertThat(left.digest()).isNotEqualTo(right.digest());
  }

  @Test
  void tellsAMissingKeyFromAnEmptyOne() {
    assertThatThrownBy(() -> IdempotencyKey.of("orders", null))
        .isInstanceOfSatisfying(InvalidKeyException.class, e -> assertThat(e.isMissing()).isTrue());
    assertThatThrownBy(() -> IdempotencyKey.of("orders", ""))
        .isInstanceOfSatisfying(
            InvalidKeyException.class, e -> assertThat(e.isMissing()).isFalse());
  }

  @Test
  void refusesAnEmptyOrControlCharacterScope() {
    assertThatThrownBy(() -> IdempotencyKey.of("", "k")).isInstanceOf(InvalidKeyException.class);
    assertThatThrownBy(() -> IdempotencyKey.of(null, "k")).isInstanceOf(InvalidKeyException.class);
    assertThatThrownBy(() -> IdempotencyKey.of("a\nb", "k"))
        .isInstanceOf(InvalidKeyException.class);
    assertThat(IdempotencyKey.of("订单:alice", "k").scope()).isEqualTo("订单:alice");
  }

  @Test
  void sameValueInTwoScopesGivesTwoDigests() {
    assertThat(IdempotencyKey.of("orders:alice", "k1").digest())
        .isNotEqualTo(IdempotencyKey.of("orders:bob", "k1").digest());
  }

  @Provide
  Arbitrary<String> visibleAscii() {
    return Arbitraries.strings().withCharRange('!', '~').ofMinLength(1).ofMaxLength(255);
  }

  @Provide
  Arbitrary<Character> notVisibleAscii() {
    return Arbitraries.oneOf(
        Arbitraries.chars().range('\u0000', ' '), Arbitraries.chars().range('\u007f', '\uffff'));
  }
}
