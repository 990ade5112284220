package dev.idem.testsupport;

import static dev.idem.testsupport.Stages.now;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.IdempotencyStore;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;

/**
 * The child side of a crash test: builds a store with the named factory, claims a key, prints
 * {@code claimed <fence>} and then hangs "mid-work" until it is killed.
 *
 * <p>Arguments: factory class (a {@code Supplier<IdempotencyStore>} with a public no-argument
 * constructor), scope, key value, lease in milliseconds.
 */
public final class CrashingClaimant {

  private CrashingClaimant() {}

  public static void main(String[] args) throws Exception {
    @SuppressWarnings("unchecked")
    Supplier<IdempotencyStore> factory =
        (Supplier<IdempotencyStore>) Class.forName(args[0]).getDeclaredConstructor().newInstance();
    IdempotencyStore store = factory.get();
    IdempotencyKey key = IdempotencyKey.of(args[1], args[2]);
    Duration lease = Duration.ofMillis(Long.parseLong(args[3]));
    ClaimResult result = now(store.claim(ClaimRequest.of(key, Fingerprint.NONE, lease)));
    if (!(result instanceof ClaimResult.Claimed claimed)) {
      System.out.println("not-claimed " + result);
      System.exit(2);
      return;
    }
    System.out.println("claimed " + claimed.lease().fence());
    System.out.flush();
    new CountDownLatch(1).await();
  }
}
