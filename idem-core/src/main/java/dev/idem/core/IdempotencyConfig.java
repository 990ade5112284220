package dev.idem.core;

import dev.idem.core.store.ClaimRequest;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * How one operation is made idempotent: lease, retention, what a duplicate in flight gets, which
 * failures are stored, and what happens when the store is down. Immutable; build one with {@link
 * #custom()} or derive one with {@link #from(IdempotencyConfig)}.
 */
public final class IdempotencyConfig {

  /** How long a claim holds before another caller may take it over: 30 s. */
  public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);

  /** How long a completed outcome is replayed: 24 h. */
  public static final Duration DEFAULT_RETENTION = Duration.ofHours(24);

  /** The longest a duplicate waits under {@link InProgressPolicy#WAIT}: 10 s. */
  public static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(10);

  /** What a refused duplicate is told to wait before retrying: 1 s. */
  public static final Duration DEFAULT_RETRY_AFTER = Duration.ofSeconds(1);

  /** How many times completion is tried when the store fails after the work ran: 3. */
  public static final int DEFAULT_COMPLETION_ATTEMPTS = 3;

  private static final IdempotencyConfig DEFAULTS = custom().build();

  private final Duration lease;
  private final Duration retention;
  private final InProgressPolicy inProgressPolicy;
  private final Duration maxWait;
  private final Duration retryAfter;
  private final boolean failOpen;
  private final boolean watchdog;
  private final int completionAttempts;
  private final Predicate<? super Throwable> terminalFailure;
  private final int scopeCap;

  private IdempotencyConfig(Builder b) {
    this.lease = b.lease;
    this.retention = b.retention;
    this.inProgressPolicy = b.inProgressPolicy;
    this.maxWait = b.maxWait;
    this.retryAfter = b.retryAfter;
    this.failOpen = b.failOpen;
    this.watchdog = b.watchdog;
    this.completionAttempts = b.completionAttempts;
    this.terminalFailure = b.terminalFailure;
    this.scopeCap = b.scopeCap;
  }

  /**
   * The defaults: 30 s lease, 24 h retention, REJECT, fail closed, watchdog on, no failure stored.
   */
  public static IdempotencyConfig ofDefaults() {
    return DEFAULTS;
  }

  /** A builder starting from the defaults. */
  public static Builder custom() {
    return new Builder();
  }

  /** A builder starting from {@code base}. */
  public static Builder from(IdempotencyConfig base) {
    return new Builder(base);
  }

  /**
   * This config as a step of work under it runs ({@link ExecutionContext#step}): a step another run
   * holds is waited for up to two leases (a run that died in the step leaves it held until its
   * lease ends, and then the waiting run takes it over), and no cap refuses a step, since a step
   * refused midway would leave the steps before it done and the work stuck.
   */
  public IdempotencyConfig forSteps() {
    return from(this).waitInProgress(lease.multipliedBy(2)).scopeCap(ClaimRequest.NO_CAP).build();
  }

  /** How long a claim holds unless renewed. */
  public Duration lease() {
    return lease;
  }

  /** How long a completed outcome is kept and replayed. */
  public Duration retention() {
    return retention;
  }

  /** What a duplicate in flight gets. */
  public InProgressPolicy inProgressPolicy() {
    return inProgressPolicy;
  }

  /** The longest a duplicate waits under WAIT. */
  public Duration maxWait() {
    return maxWait;
  }

  /** The Retry-After told to a refused duplicate. */
  public Duration retryAfter() {
    return retryAfter;
  }

  /** True when work runs without deduplication while the store is down (explicit opt-in). */
  public boolean failOpen() {
    return failOpen;
  }

  /** True when a watchdog renews the lease every third of it while the work runs. */
  public boolean watchdog() {
    return watchdog;
  }

  /** How many times completion is tried when the store fails after the work ran. */
  public int completionAttempts() {
    return completionAttempts;
  }

  /**
   * The most live records one scope may hold before a new key in it is refused with {@link
   * StoreFullException}; {@link ClaimRequest#NO_CAP} (the default) for none.
   */
  public int scopeCap() {
    return scopeCap;
  }

  /** True when {@code failure} ends the operation for good and is stored for replay. */
  public boolean isTerminal(Throwable failure) {
    return terminalFailure.test(failure);
  }

  /** Builds an {@link IdempotencyConfig}; every value is checked in {@link #build()}. */
  public static final class Builder {
    private Duration lease = DEFAULT_LEASE;
    private Duration retention = DEFAULT_RETENTION;
    private InProgressPolicy inProgressPolicy = InProgressPolicy.REJECT;
    private Duration maxWait = DEFAULT_MAX_WAIT;
    private Duration retryAfter = DEFAULT_RETRY_AFTER;
    private boolean failOpen;
    private boolean watchdog = true;
    private int completionAttempts = DEFAULT_COMPLETION_ATTEMPTS;
    private Predicate<? super Throwable> terminalFailure = failure -> false;
    private int scopeCap = ClaimRequest.NO_CAP;

    private Builder() {}

    private Builder(IdempotencyConfig base) {
      lease = base.lease;
      retention = base.retention;
      inProgressPolicy = base.inProgressPolicy;
      maxWait = base.maxWait;
      retryAfter = base.retryAfter;
      failOpen = base.failOpen;
      watchdog = base.watchdog;
      completionAttempts = base.completionAttempts;
      terminalFailure = base.terminalFailure;
      scopeCap = base.scopeCap;
    }

    /** How long a claim holds unless renewed; positive. */
    public Builder lease(Duration lease) {
      this.lease = lease;
      return this;
    }

    /** How long outcomes are replayed; positive. */
    public Builder retention(Duration retention) {
      this.retention = retention;
      return this;
    }

    /** Refuse duplicates in flight at once (the default). */
    public Builder rejectInProgress() {
      this.inProgressPolicy = InProgressPolicy.REJECT;
      return this;
    }

    /** Let duplicates in flight wait up to {@code maxWait} for the first result. */
    public Builder waitInProgress(Duration maxWait) {
      this.inProgressPolicy = InProgressPolicy.WAIT;
      this.maxWait = maxWait;
      return this;
    }

    /** The Retry-After told to a refused duplicate; zero or positive. */
    public Builder retryAfter(Duration retryAfter) {
      this.retryAfter = retryAfter;
      return this;
    }

    /** Run work without deduplication when the store is down; off unless set. */
    public Builder failOpen(boolean failOpen) {
      this.failOpen = failOpen;
      return this;
    }

    /** Renew the lease every third of it while the work runs; on by default. */
    public Builder watchdog(boolean watchdog) {
      this.watchdog = watchdog;
      return this;
    }

    /** Tries of completion when the store fails after the work ran; at least 1. */
    public Builder completionAttempts(int completionAttempts) {
      this.completionAttempts = completionAttempts;
      return this;
    }

    /**
     * Which exceptions are terminal: stored and replayed to every repeat (a business refusal, a
     * 4xx). All others release the key so that a retry runs the work again. None by default.
     */
    public Builder terminalWhen(Predicate<? super Throwable> terminalFailure) {
      this.terminalFailure = Objects.requireNonNull(terminalFailure, "terminalFailure");
      return this;
    }

    /**
     * Caps the live records of one scope (one caller's operation, when the scope names the caller):
     * a new key past it is refused with {@link StoreFullException}, so one caller cannot fill the
     * store for everyone. Repeats of live keys are still answered. At least 1; none by default.
     */
    public Builder scopeCap(int scopeCap) {
      this.scopeCap = scopeCap;
      return this;
    }

    /**
     * @throws IllegalArgumentException naming the first value out of range
     */
    public IdempotencyConfig build() {
      positive("lease", lease);
      positive("retention", retention);
      notNegative("maxWait", maxWait);
      notNegative("retryAfter", retryAfter);
      Objects.requireNonNull(inProgressPolicy, "inProgressPolicy");
      if (completionAttempts < 1) {
        throw new IllegalArgumentException(
            "completionAttempts must be at least 1, was " + completionAttempts);
      }
      if (scopeCap < 1) {
        throw new IllegalArgumentException("scopeCap must be at least 1, was " + scopeCap);
      }
      return new IdempotencyConfig(this);
    }

    private static void positive(String name, Duration d) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(name + " must be positive, was " + d);
      }
    }

    private static void notNegative(String name, Duration d) {
      if (d == null || d.isNegative()) {
        throw new IllegalArgumentException(name + " must not be negative, was " + d);
      }
    }
  }
}
