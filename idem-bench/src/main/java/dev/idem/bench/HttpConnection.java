package dev.idem.bench;

import java.io.Closeable;
import java.io.IOException;

/** One virtual user's connection: posts the benchmark's JSON body with a given key. */
interface HttpConnection extends Closeable {

  /**
   * What came back.
   *
   * @param status the status code
   * @param replayed whether {@code Idempotent-Replayed: true} was among the headers
   * @param body the body, as text
   */
  record Answer(int status, boolean replayed, String body) {}

  /** Opens connections to {@code port} that post {@code json} to {@code path}. */
  @FunctionalInterface
  interface Factory {
    HttpConnection open(int port, String path, String json);
  }

  /** Sends the request with {@code Idempotency-Key: key} and reads the whole answer. */
  Answer post(String key) throws IOException;
}
