package dev.idem.shop.order;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.UUID;

/**
 * Order numbers. Without one from the client, the number is derived from the caller and the key the
 * request came with, so that a retry whose idempotency record is gone (a flushed Redis, an expired
 * record) still lands on the same row and is stopped by the unique index.
 */
final class OrderNumbers {

  private OrderNumbers() {}

  /** The client's number, already checked by {@link OrderRequest}'s constraints. */
  static String chosen(String orderNo) {
    return orderNo;
  }

  static String derived(String username, String key) {
    if (key == null || key.isBlank()) {
      return "ORD-" + UUID.randomUUID().toString().replace("-", "").substring(0, 24);
    }
    byte[] digest = sha256(username + "\n" + key);
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
