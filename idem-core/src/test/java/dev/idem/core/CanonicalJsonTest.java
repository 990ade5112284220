package dev.idem.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class CanonicalJsonTest {

  @Test
  void sortsMembersAndDropsWhiteSpace() {
    assertThat(
            CanonicalJson.canonicalize(
                " { \"b\" : [1, 2 ,{\"z\":null,\"a\":true}],\n\t\"a\":\"x\" } "))
        .isEqualTo("{\"a\":\"x\",\"b\":[1,2,{\"a\":true,\"z\":null}]}");
  }

  @Test
  void leavesOutExcludedMembersAtAnyDepthAndInsideArrays() {
    String json =
        "{\"requestedAt\":\"12:00\",\"meta\":{\"traceId\":\"t1\",\"source\":\"web\"},"
            + "\"items\":[{\"sku\":\"a\",\"note\":\"x\"},{\"sku\":\"b\"}],\"traceId\":1}";
    assertThat(
            CanonicalJson.canonicalize(
                json, Set.of("requestedAt", "meta.traceId", "items.note", "no.such")))
        .isEqualTo(
            "{\"items\":[{\"sku\":\"a\"},{\"sku\":\"b\"}],\"meta\":{\"source\":\"web\"},"
                + "\"traceId\":1}");
  }

  @Test
  void anExcludedMemberMustStillBeValidAndUnique() {
    assertThatThrownBy(() -> CanonicalJson.canonicalize("{\"at\":tru}", Set.of("at")))
        .isInstanceOf(MalformedJsonException.class);
    assertThatThrownBy(() -> CanonicalJson.canonicalize("{\"at\":1,\"at\":2}", Set.of("at")))
        .isInstanceOf(MalformedJsonException.class);
  }

  @Test
  void twoDocumentsDifferingOnlyInExcludedMembersHaveOneFingerprint() {
    Set<String> excluded = Set.of("requestedAt");
    assertThat(Fingerprint.ofJson("POST /x", "{\"a\":1,\"requestedAt\":1}", excluded))
        .isEqualTo(Fingerprint.ofJson("POST /x", "{\"requestedAt\":2, \"a\":1}", excluded))
        .isNotEqualTo(Fingerprint.ofJson("POST /x", "{\"a\":2,\"requestedAt\":1}", excluded));
  }

  @Test
  void spellsNumbersByValue() {
    assertThat(CanonicalJson.canonicalize("[1.0, 1e0, 10E-1, -0, 0.0, 1.50, 100, 1e2]"))
        .isEqualTo("[1,1,1,0,0,1.5,100,100]");
    assertThat(CanonicalJson.canonicalize("1e400")).isEqualTo("1E+400");
    assertThat(CanonicalJson.canonicalize("12345678901234567890.5"))
        .isEqualTo("12345678901234567890.5");
  }

  @Test
  void escapesStringsOneWayOnly() {
    assertThat(CanonicalJson.canonicalize("\"\\u0041\\/\\n\\u001f\\\"\""))
        .isEqualTo("\"A/\\n\\u001f\\\"\"");
    assertThat(CanonicalJson.canonicalize("\"\\u5b57\"")).isEqualTo("\"字\"");
    assertThat(CanonicalJson.canonicalize("\"字\"")).isEqualTo("\"字\"");
  }

  /** Documents and their canonical form, each written out by hand from the rules in the Javadoc. */
  static Stream<Arguments> documentsAndTheirCanonicalForm() {
    return Stream.of(
        arguments(" { } ", "{}"),
        arguments("[ ]", "[]"),
        arguments("  \"x\"\n", "\"x\""),
        arguments("42", "42"),
        arguments("[ true ,\nfalse,\r\tnull ]", "[true,false,null]"),
        arguments(
            "{\"b\":1,\"a\":2,\"c\":{\"y\":[3,2,1],\"x\":null}}",
            "{\"a\":2,\"b\":1,\"c\":{\"x\":null,\"y\":[3,2,1]}}"),
        arguments("[{\"b\":1,\"a\":2},{\"a\":3},[]]", "[{\"a\":2,\"b\":1},{\"a\":3},[]]"),
        // UTF-16 code unit order: the empty name first, upper case before lower case, and a
        // surrogate pair (U+1F600, units D83D DE00) before U+FFFF although its code point is higher
        arguments(
            "{\"a\":1,\"B\":2,\"_\":3,\"\u00e9\":4,\"\\ud83d\\ude00\":5,\"\uffff\":6,\"\":7}",
            "{\"\":7,\"B\":2,\"_\":3,\"a\":1,\"\u00e9\":4,\"\ud83d\ude00\":5,\"\uffff\":6}"),
        // the short escapes where JSON has them, six-character ones for the other control
        // characters, and no other escapes
        arguments(
            "\"\\b\\f\\n\\r\\t\\u0000\\u001F\\u0020\\u007f\\/\\\\\\\"\"",
            "\"\\b\\f\\n\\r\\t\\u0000\\u001f \u007f/\\\\\\\"\""),
        arguments("\"\\u00E9\\u5B57\"", "\"\u00e9\u5b57\""),
        arguments(
            "[0, -0, 0.0, -0.0e5, 1, -1, 1.0, 1.50, 2.5e1, 25e-1, 1E2, 1e+2, 0.001, 1e-3]",
            "[0,0,0,0,1,-1,1,1.5,25,2.5,100,100,0.001,0.001]"),
        arguments("123456789012345678901234567890", "123456789012345678901234567890"),
        arguments("[1e400, -1.50e-400]", "[1E+400,-1.5E-400]"));
  }

  @ParameterizedTest
  @MethodSource("documentsAndTheirCanonicalForm")
  void rewritesADocumentIntoItsCanonicalForm(String json, String canonical) {
    assertThat(CanonicalJson.canonicalize(json)).isEqualTo(canonical);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "{",
        "[1,]",
        "{\"a\":1,}",
        "{\"a\" 1}",
        "01",
        "1.",
        "-",
        "1e",
        "+1",
        "tru",
        "nul",
        "\"unterminated",
        "\"bad \\x escape\"",
        "\"\\u12\"",
        "[1] 2",
        "{\"a\":1,\"a\":2}",
        "'single'",
        "NaN",
        "\"tab\tinside\""
      })
  void refusesWhatIsNotJson(String text) {
    assertThatThrownBy(() -> CanonicalJson.canonicalize(text))
        .isInstanceOf(MalformedJsonException.class)
        .hasMessageContaining("at offset");
  }

  @Test
  void refusesNestingPastTheLimit() {
    String deep = "[".repeat(CanonicalJson.MAX_DEPTH + 1) + "]".repeat(CanonicalJson.MAX_DEPTH + 1);
    assertThatThrownBy(() -> CanonicalJson.canonicalize(deep))
        .isInstanceOf(MalformedJsonException.class)
        .hasMessageContaining("nesting");
    String ok = "[".repeat(CanonicalJson.MAX_DEPTH) + "]".repeat(CanonicalJson.MAX_DEPTH);
    assertThat(CanonicalJson.canonicalize(ok)).isEqualTo(ok);
  }

  @Property
  void reorderedMembersAndWhiteSpaceGiveTheSameFingerprint(
      @ForAll("objects") List<String[]> members, @ForAll long seed) {
    String ordered = render(members, "", new Random(seed), false);
    List<String[]> shuffled = new ArrayList<>(members);
    Collections.shuffle(shuffled, new Random(seed));
    String spaced = render(shuffled, " \n\t", new Random(seed), true);
    assertThat(Fingerprint.ofJson("POST /x", spaced))
        .isEqualTo(Fingerprint.ofJson("POST /x", ordered));
  }

  @Property
  void canonicalFormIsAFixedPoint(@ForAll("objects") List<String[]> members) {
    String once = CanonicalJson.canonicalize(render(members, " ", new Random(1), true));
    assertThat(CanonicalJson.canonicalize(once)).isEqualTo(once);
  }

  @Property
  void differentValuesGiveDifferentFingerprints(
      @ForAll("objects") List<String[]> members, @ForAll("scalars") String other) {
    if (members.isEmpty() || members.get(0)[1].equals(other)) {
      return;
    }
    List<String[]> changed = new ArrayList<>(members);
    changed.set(0, new String[] {members.get(0)[0], other});
    String a = render(members, "", new Random(1), false);
    String b = render(changed, "", new Random(1), false);
    if (!CanonicalJson.canonicalize(a).equals(CanonicalJson.canonicalize(b))) {
      assertThat(Fingerprint.ofJson("", a)).isNotEqualTo(Fingerprint.ofJson("", b));
    }
  }

  @Provide
  Arbitrary<List<String[]>> objects() {
    Arbitrary<String> names = Arbitraries.strings().alpha().numeric().ofMinLength(1).ofMaxLength(8);
    return Arbitraries.maps(names, scalars())
        .ofMaxSize(8)
        .map(m -> m.entrySet().stream().map(e -> new String[] {e.getKey(), e.getValue()}).toList());
  }

  @Provide
  Arbitrary<String> scalars() {
    return Arbitraries.oneOf(
        Arbitraries.integers().map(String::valueOf),
        Arbitraries.doubles().between(-1e6, 1e6).ofScale(3).map(d -> String.valueOf(d)),
        Arbitraries.strings().withCharRange(' ', '~').ofMaxLength(10).map(s -> quote(s)),
        Arbitraries.of("true", "false", "null", "[]", "{}", "[1,\"a\",null]"));
  }

  private static String render(List<String[]> members, String space, Random random, boolean pad) {
    StringBuilder out = new StringBuilder("{");
    for (int i = 0; i < members.size(); i++) {
      if (i > 0) {
        out.append(',');
      }
      out.append(pad ? pick(space, random) : "").append(quote(members.get(i)[0]));
      out.append(pad ? pick(space, random) : "").append(':').append(pad ? pick(space, random) : "");
      out.append(members.get(i)[1]);
    }
    return out.append(pad ? pick(space, random) : "").append('}').toString();
  }

  private static String pick(String space, Random random) {
    return space.isEmpty() ? "" : String.valueOf(space.charAt(random.nextInt(space.length())));
  }

  private static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
