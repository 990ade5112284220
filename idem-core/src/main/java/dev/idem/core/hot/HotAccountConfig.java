package dev.idem.core.hot;

import java.time.Duration;
import java.util.Objects;

/**
 * The settings of a {@link HotAccountExecutor}. Immutable; made by {@link #ofDefaults()}, {@link
 * #custom()} or {@link #from(HotAccountConfig)}, checked in {@link Builder#build()}.
 */
public final class HotAccountConfig {

  /** How deductions of one account reach the store. */
  public enum Mode {
    /** One store call per deduction, one at a time per account: no race, no batching. */
    SERIALIZE,
    /** One store call for everything queued on an account, up to {@link #maxBatchSize()}. */
    COALESCE
  }

  public static final Mode DEFAULT_MODE = Mode.COALESCE;
  public static final int DEFAULT_MAX_BATCH_SIZE = 128;
  public static final int DEFAULT_MAX_QUEUE_SIZE = 10_000;
  public static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(10);
  public static final Duration DEFAULT_GATHER_WAIT = Duration.ofMillis(1);

  private final Mode mode;
  private final int maxBatchSize;
  private final int maxQueueSize;
  private final Duration maxWait;
  private final Duration gatherWait;

  private HotAccountConfig(Builder b) {
    this.mode = b.mode;
    this.maxBatchSize = b.maxBatchSize;
    this.maxQueueSize = b.maxQueueSize;
    this.maxWait = b.maxWait;
    this.gatherWait = b.gatherWait;
  }

  /**
   * Coalescing, batches of up to 128, queues of up to 10,000, waits of up to 10 s, a gather wait of
   * 1 ms.
   */
  public static HotAccountConfig ofDefaults() {
    return custom().build();
  }

  /** A builder starting from the defaults. */
  public static Builder custom() {
    return new Builder();
  }

  /** A builder starting from {@code base}. */
  public static Builder from(HotAccountConfig base) {
    return new Builder()
        .mode(base.mode)
        .maxBatchSize(base.maxBatchSize)
        .maxQueueSize(base.maxQueueSize)
        .maxWait(base.maxWait)
        .gatherWait(base.gatherWait);
  }

  public Mode mode() {
    return mode;
  }

  /** The most deductions per store call: 1 when serializing. */
  public int maxBatchSize() {
    return mode == Mode.SERIALIZE ? 1 : maxBatchSize;
  }

  /** The most deductions waiting on one account (besides those being applied) before refusal. */
  public int maxQueueSize() {
    return maxQueueSize;
  }

  /** How long a caller waits for its deduction's result at most. */
  public Duration maxWait() {
    return maxWait;
  }

  /**
   * How long the first caller of an idle account waits, when coalescing, for as many callers as the
   * account's last batch held before applying its batch. Callers that were answered together tend
   * to come back together (a pool of workers, a burst of payments); without the wait the first of
   * them to return would go to the store alone, and the others in the batch after, paying two
   * transactions for what fits in one. The wait ends as soon as they are queued, so it costs its
   * full length only when they do not come, and never more than half of the first caller's own
   * {@link #maxWait()}. {@link Duration#ZERO} turns it off.
   */
  public Duration gatherWait() {
    return gatherWait;
  }

  /** Collects settings; not thread-safe. */
  public static final class Builder {
    private Mode mode = DEFAULT_MODE;
    private int maxBatchSize = DEFAULT_MAX_BATCH_SIZE;
    private int maxQueueSize = DEFAULT_MAX_QUEUE_SIZE;
    private Duration maxWait = DEFAULT_MAX_WAIT;
    private Duration gatherWait = DEFAULT_GATHER_WAIT;

    private Builder() {}

    public Builder mode(Mode mode) {
      this.mode = Objects.requireNonNull(mode, "mode");
      return this;
    }

    /** At least 1; ignored when serializing. */
    public Builder maxBatchSize(int maxBatchSize) {
      this.maxBatchSize = maxBatchSize;
      return this;
    }

    /** At least 1. */
    public Builder maxQueueSize(int maxQueueSize) {
      this.maxQueueSize = maxQueueSize;
      return this;
    }

    /** Positive. */
    public Builder maxWait(Duration maxWait) {
      this.maxWait = Objects.requireNonNull(maxWait, "maxWait");
      return this;
    }

    /**
     * Zero or more, and shorter than {@link #maxWait(Duration)}; zero turns gathering off. See
     * {@link HotAccountConfig#gatherWait()}.
     */
    public Builder gatherWait(Duration gatherWait) {
      this.gatherWait = Objects.requireNonNull(gatherWait, "gatherWait");
      return this;
    }

    /**
     * @throws IllegalArgumentException when a size is below 1, the wait is not positive or the
     *     gather wait is negative or not shorter than the wait
     */
    public HotAccountConfig build() {
      if (maxBatchSize < 1) {
        throw new IllegalArgumentException("maxBatchSize must be at least 1, was " + maxBatchSize);
      }
      if (maxQueueSize < 1) {
        throw new IllegalArgumentException("maxQueueSize must be at least 1, was " + maxQueueSize);
      }
      if (maxWait.isNegative() || maxWait.isZero()) {
        throw new IllegalArgumentException("maxWait must be positive, was " + maxWait);
      }
      if (gatherWait.isNegative()) {
        throw new IllegalArgumentException("gatherWait must not be negative, was " + gatherWait);
      }
      if (gatherWait.compareTo(maxWait) >= 0) {
        throw new IllegalArgumentException(
            "gatherWait (" + gatherWait + ") must be shorter than maxWait (" + maxWait + ")");
      }
      return new HotAccountConfig(this);
    }
  }
}
