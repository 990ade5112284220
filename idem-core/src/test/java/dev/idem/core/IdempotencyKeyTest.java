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

  @Property
  void noRootKeyHasTheDigestOfAStep(@ForAll("visibleAscii") @StringLength(max = 240) String value) {
    IdempotencyKey root = IdempotencyKey.of("orders|alice", value);
    IdempotencyKey step = root.step("charge");
    assertThat(step.digest())
        .isNotEqualTo(root.digest())
        .isNotEqualTo(IdempotencyKey.of(root.scope(), root.value() + "#charge").digest())
        .isNotEqualTo(IdempotencyKey.of("step:" + root.digest(), "charge").digest());
    assertThat(step).isNotEqualTo(IdempotencyKey.of(root.scope(), root.value()));
  }

  @Test
  void aStepKeepsItsRootsScopeAndValueAndNamesItsPath() {
    IdempotencyKey root = IdempotencyKey.of("orders|alice", "k1");
    IdempotencyKey hold = root.step("pay").step("hold");

    assertThat(hold.scope()).isEqualTo("orders|alice");
    assertThat(hold.value()).isEqualTo("k1");
    assertThat(hold.stepPath()).isEqualTo("pay/hold");
    assertThat(hold.isStep()).isTrue();
    assertThat(hold.root()).isEqualTo(root);
    assertThat(root.isStep()).isFalse();
    assertThat(root.root()).isSameAs(root);
    assertThat(hold)
        .isEqualTo(root.step("pay").step("hold"))
        .hasToString("orders|alice/k1#pay/hold");
    assertThat(hold.digest()).isEqualTo(root.step("pay").step("hold").digest());
    assertThat(hold.digest()).isNotEqualTo(root.step("pay/hold".replace('/', '-')).digest());
    assertThat(IdempotencyKey.of("orders|bob", "k1").step("pay").digest())
        .isNotEqualTo(root.step("pay").digest());
  }

  @Test
  void refusesAStepNameAClientCouldNotHaveChosenEither() {
    IdempotencyKey root = IdempotencyKey.of("orders|alice", "k1");
    assertThatThrownBy(() -> root.step("")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> root.step("a/b")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> root.step("a b")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> root.step("x".repeat(101)))
        .isInstanceOf(IllegalArgumentException.class);
    IdempotencyKey deep = root;
    for (int i = 0; i < IdempotencyKey.MAX_STEP_DEPTH; i++) {
      deep = deep.step("s" + i);
    }
    IdempotencyKey deepest = deep;
    assertThatThrownBy(() -> deepest.step("one-more"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("deep");
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
