package dev.idem.core.lock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.testsupport.LockProviderContract;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Runs the lock contract on {@link InMemoryLockProvider}, plus checks of how it bounds its memory.
 * It lives in the provider's package to read its entry count.
 */
class InMemoryLockProviderTest extends LockProviderContract {

  private final MutableClock clock = MutableClock.ticking();
  private final InMemoryLockProvider provider = new InMemoryLockProvider(clock);

  @Override
  protected LockProvider provider() {
    return provider;
  }

  @Override
  protected void letTimePass(Duration duration) {
    clock.advance(duration);
  }

  @Test
  void keepsNothingForLocksThatWereClosed() throws InterruptedException {
    for (int i = 0; i < 1_000; i++) {
      provider.tryLock("closed-" + i, Duration.ZERO, Duration.ofMinutes(1)).orElseThrow().close();
    }

    assertThat(provider.entryCount()).isZero();
  }

  @Test
  void dropsLocksWhoseLeaseRanOutWithoutAClose() throws InterruptedException {
    for (int i = 0; i < 1_000; i++) {
      provider.tryLock("abandoned-" + i, Duration.ZERO, Duration.ofSeconds(1)).orElseThrow();
    }
    clock.advance(Duration.ofSeconds(2));

    for (int i = 0; i < 1_000; i++) {
      provider.tryLock("live-" + i, Duration.ZERO, Duration.ofMinutes(1)).orElseThrow();
    }

    assertThat(provider.entryCount()).isEqualTo(1_000);
  }

  @Test
  void fencesKeepGrowingAfterANameWasForgotten() throws InterruptedException {
    LockHandle first = provider.tryLock("forgotten", Duration.ZERO, Duration.ofSeconds(1)).get();
    first.close();
    assertThat(provider.entryCount()).isZero();

    try (LockHandle second =
        provider.tryLock("forgotten", Duration.ZERO, Duration.ofSeconds(1)).get()) {
      assertThat(second.fence()).isGreaterThan(first.fence());
    }
  }
}
