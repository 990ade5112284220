package dev.idem.chaos;

/**
 * One HTTP answer the tool received.
 *
 * @param status the HTTP status
 * @param body the body as text
 * @param startMillis when the request went out, from the start of the load
 * @param endMillis when the answer was read, from the start of the load
 */
public record Answer(int status, String body, long startMillis, long endMillis) {

  /** Whether another answer has the same status and body. */
  boolean sameAs(Answer other) {
    return status == other.status && body.equals(other.body);
  }

  boolean success() {
    return status >= 200 && status < 300;
  }
}
