package dev.idem.testsupport.net;

import java.util.concurrent.CompletableFuture;

/**
 * A store call made while a {@link FaultProxy} holds or drops its traffic, on a thread of its own,
 * so that a test can wait for it with a guard against a hang rather than hang itself.
 */
public final class StalledCall {

  private StalledCall() {}

  /** What {@code call} fails with, or null when it returns; ends when the call does. */
  public static CompletableFuture<Throwable> failureOf(Runnable call) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            call.run();
            return null;
          } catch (RuntimeException e) {
            return e;
          }
        });
  }
}
