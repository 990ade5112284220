package dev.idem.core.retry;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.time.Duration;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

class FullJitterBackoffTest {

  @Property
  void everyDelayLiesBetweenZeroAndTheCeiling(
      @ForAll @IntRange(min = 0, max = 200) int retry,
      @ForAll long seed,
      @ForAll @LongRange(min = 0, max = 1_000_000_000L) long baseNanos,
      @ForAll @LongRange(min = 0, max = 60_000_000_000L) long extraNanos) {
    Duration base = Duration.ofNanos(baseNanos);
    Duration max = base.plusNanos(extraNanos);
    FullJitterBackoff backoff = new FullJitterBackoff(base, max, new SplittableRandom(seed));

    Duration delay = backoff.delay(retry);

    assertThat(delay).isBetween(Duration.ZERO, backoff.ceiling(retry));
  }

  @Property
  void theCeilingDoublesFromTheBaseUntilItReachesTheMaximum(
      @ForAll @IntRange(min = 0, max = 200) int retry,
      @ForAll @LongRange(min = 0, max = 1_000_000_000L) long baseNanos,
      @ForAll @LongRange(min = 0, max = Long.MAX_VALUE - 1_000_000_000L) long extraNanos) {
    long maxNanos = baseNanos + extraNanos;
    FullJitterBackoff backoff =
        new FullJitterBackoff(
            Duration.ofNanos(baseNanos), Duration.ofNanos(maxNanos), EdgeRandom.top());

    // BigInteger keeps base * 2^retry exact where long arithmetic would overflow.
    long expected =
        BigInteger.valueOf(baseNanos)
            .shiftLeft(retry)
            .min(BigInteger.valueOf(maxNanos))
            .longValueExact();

    assertThat(backoff.ceiling(retry)).isEqualTo(Duration.ofNanos(expected));
  }

  @Property
  void aGeneratorAtTheTopOfItsRangeReachesTheCeilingExactly(
      @ForAll @IntRange(min = 0, max = 70) int retry,
      @ForAll @LongRange(min = 1, max = Long.MAX_VALUE) long maxNanos) {
    FullJitterBackoff backoff =
        new FullJitterBackoff(Duration.ofNanos(1), Duration.ofNanos(maxNanos), EdgeRandom.top());

    assertThat(backoff.delay(retry)).isEqualTo(backoff.ceiling(retry));
  }
}
