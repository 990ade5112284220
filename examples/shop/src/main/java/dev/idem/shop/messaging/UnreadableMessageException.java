package dev.idem.shop.messaging;

/**
 * A message no delivery can ever apply: no id to deduplicate by, or a payload that is not the
 * event. Redelivering it would only loop, so a broker should dead-letter it rather than requeue it.
 */
public final class UnreadableMessageException extends RuntimeException {

  UnreadableMessageException(String detail, Throwable cause) {
    super(detail, cause);
  }
}
