package dev.idem.chaos;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Reading the shop's JSON answers, and the order numbers it derives from keys. */
final class Bodies {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private Bodies() {}

  /** The text field {@code name} of a JSON object body, if the body is one and has it. */
  static Optional<String> field(String body, String name) {
    return tree(body)
        .map(t -> t.get(name))
        .filter(n -> n != null && !n.isNull())
        .map(JsonNode::asString);
  }

  /** The body as a JSON tree, if it is JSON. */
  static Optional<JsonNode> tree(String body) {
    try {
      return Optional.ofNullable(JSON.readTree(body));
    } catch (JacksonException e) {
      return Optional.empty();
    }
  }

  /**
   * The order number the shop gives an order placed by {@code user} with {@code key} and no number
   * of its own: {@code ORD-} and 24 hex digits of SHA-256 over user, newline, key (the shop's
   * {@code OrderNumbers.derived}).
   */
  static String derivedOrderNo(String user, String key) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest((user + "\n" + key).getBytes(StandardCharsets.UTF_8));
      return "ORD-" + HexFormat.of().formatHex(digest).substring(0, 24);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
