package dev.idem.shop.order;

import dev.idem.shop.ShopException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Order numbers. Without one from the client, the number is derived from the caller and the key the
 * request came with, so that a retry whose idempotency record is gone (a flushed Redis, an expired
 * record) still lands on the same row and is stopped by the unique index.
 */
final class OrderNumbers {

  private static final Pattern CLIENT_CHOSEN = Pattern.compile("[A-Za-z0-9_-]{1,64}");

  private OrderNumbers() {}

  static String chosen(String orderNo) {
    if (!CLIENT_CHOSEN.matcher(orderNo).matches()) {
      throw ShopException.badRequest(
          "invalid-request", "orderNo must be 1 to 64 letters, digits, '-' or '_'");
    }
    return orderNo;
  }

  static String derived(String username, String key) {
    if (key == null || key.isBlank()) {
      return "ORD-" + UUID.randomUUID().toString().replace("-", "").substring(0, 24);
    }
    String bare =
        key.length() >= 2 && key.startsWith("\"") && key.endsWith("\"")
            ? key.substring(1, key.length() - 1)
            : key;
    byte[] digest = sha256(username + "\n" + bare);
    return "ORD-" + HexFormat.of().formatHex(digest).substring(0, 24);
  }

  private static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
