package dev.idem.shop.gateway;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Keeps one charge waiting inside the fake gateway until released, so that a test or a
 * demonstration can act while a payment is surely in flight (reload the page, send a retry). The
 * charge waits at most a minute, then goes on by itself.
 */
public final class GatewayHold {

  private static final Duration LONGEST = Duration.ofMinutes(1);

  private final CountDownLatch arrived = new CountDownLatch(1);
  private final CountDownLatch released = new CountDownLatch(1);

  GatewayHold() {}

  /** Waits until a charge is held here; false when none came within {@code timeout}. */
  public boolean awaitCharge(Duration timeout) throws InterruptedException {
    return arrived.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Lets the held charge go on (or the next one through at once). */
  public void release() {
    released.countDown();
  }

  // Called by the charge: says it is here, then waits for the release.
  void hold() {
    arrived.countDown();
    try {
      released.await(LONGEST.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
