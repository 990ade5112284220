package dev.idem.spring.web.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Fingerprint;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RequestFingerprintTest {

  private static Fingerprint of(String query, String contentType, byte[] body) {
    return RequestFingerprint.of("POST", "/transfers", query, contentType, body, Set.of());
  }

  @Test
  void theQueryIsPartOfTheFingerprint() {
    byte[] none = new byte[0];
    assertThat(of("amount=10", null, none)).isNotEqualTo(of("amount=1000", null, none));
    assertThat(of(null, null, none)).isNotEqualTo(of("amount=10", null, none));
    assertThat(of("", null, none)).isEqualTo(of(null, null, none));
  }

  @Test
  void aBodyIsDecodedWithTheCharsetItsRequestDeclares() {
    String type = "application/json;charset=ISO-8859-1";
    Fingerprint acute =
        of(null, type, "{\"name\":\"\u00e9\"}".getBytes(StandardCharsets.ISO_8859_1));
    Fingerprint grave =
        of(null, type, "{\"name\":\"\u00e8\"}".getBytes(StandardCharsets.ISO_8859_1));
    assertThat(acute).isNotEqualTo(grave);
  }

  @Test
  void bytesThatAreNotTextInTheDeclaredCharsetAreNeverTakenForOtherBytes() {
    // two bodies that a lenient UTF-8 decoder would both turn into one replacement character
    String type = "application/json";
    byte[] first = {'{', '"', 'a', '"', ':', '"', (byte) 0xE9, '"', '}'};
    byte[] second = {'{', '"', 'a', '"', ':', '"', (byte) 0xE8, '"', '}'};
    assertThat(of(null, type, first)).isNotEqualTo(of(null, type, second));
  }

  @Test
  void theContentTypeIsPartOfTheFingerprint() {
    byte[] body = "caf\u00e9".getBytes(StandardCharsets.ISO_8859_1);
    assertThat(of(null, "text/plain;charset=ISO-8859-1", body))
        .isNotEqualTo(of(null, "text/plain;charset=windows-1252", body));
    assertThat(of(null, "text/plain", body))
        .isNotEqualTo(of(null, "application/octet-stream", body));
  }

  @Test
  void aJsonBodyIsStillCanonical() {
    assertThat(of(null, "application/json", "{\"a\":1, \"b\":2}".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo(
            of(null, "application/json", "{\"b\":2,\"a\":1}".getBytes(StandardCharsets.UTF_8)));
  }
}
