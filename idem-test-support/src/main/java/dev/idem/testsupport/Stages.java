package dev.idem.testsupport;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/** A store's answer as a test reads it: the stage waited for, its failure thrown as it is. */
public final class Stages {

  private Stages() {}

  /**
   * Waits for {@code stage} and returns its value; a stage that failed throws what it failed with,
   * unwrapped (a {@link dev.idem.core.StoreFullException}, say), so a test asserts on the store's
   * own exception.
   */
  public static <V> V now(CompletableFuture<V> stage) {
    try {
      return stage.join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw e;
    }
  }
}
