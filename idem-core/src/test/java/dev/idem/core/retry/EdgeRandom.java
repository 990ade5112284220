package dev.idem.core.retry;

import java.util.random.RandomGenerator;

/** Random generators pinned to one end of every bounded draw, to make jitter predictable. */
final class EdgeRandom {

  private EdgeRandom() {}

  /** Always draws the largest value below the bound, so each delay equals its ceiling. */
  static RandomGenerator top() {
    return new RandomGenerator() {
      @Override
      public long nextLong() {
        return Long.MAX_VALUE;
      }

      @Override
      public long nextLong(long bound) {
        return bound - 1;
      }
    };
  }

  /** Always draws zero, so every delay is zero. */
  static RandomGenerator bottom() {
    return new RandomGenerator() {
      @Override
      public long nextLong() {
        return 0;
      }

      @Override
      public long nextLong(long bound) {
        return 0;
      }
    };
  }
}
