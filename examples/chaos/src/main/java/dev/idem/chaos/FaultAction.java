package dev.idem.chaos;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** What a fault does, as written in a scenario file ({@code kill}, {@code flush-redis}, ...). */
public enum FaultAction {
  /** SIGKILL one shop instance; the load moves to the others. */
  KILL(false, false),
  /** Start a killed instance again on its port. */
  RESTART(false, false),
  /** {@code FLUSHALL} on the private Redis: every idempotency record is gone. */
  FLUSH_REDIS(true, false),
  /** Stop the private Redis and start it again (empty: it keeps nothing on disk). */
  RESTART_REDIS(true, false),
  /** Delay every byte between the shops and the database by {@code latency}. */
  DB_LATENCY(false, true),
  /** Cut every open connection between the shops and the database. */
  DB_CUT(false, true),
  /** Delay every byte between the shops and Redis by {@code latency}. */
  REDIS_LATENCY(true, true),
  /** Cut every open connection between the shops and Redis. */
  REDIS_CUT(true, true),
  /**
   * Cut one shop off from the database and Redis: its connections stay open and its bytes are held,
   * not passed on, until {@link #HEAL}, when they arrive late, in order.
   */
  PARTITION(true, true),
  /** Take back every proxy fault (latency off, a partition healed). */
  HEAL(false, true),
  /**
   * Kill the primary of the scenario's Redis (a primary, a replica and a Sentinel of the tool's
   * own) and wait until the Sentinel has promoted the replica: writes the replica had not received
   * are lost, as Redis replicates asynchronously.
   */
  FAILOVER_REDIS(true, false),
  /**
   * Stop the scenario's private PostgreSQL at once ({@code pg_ctl stop -m immediate}, as in a
   * crash): every connection is cut and none is taken until it starts again.
   */
  STOP_POSTGRES(false, false),
  /** Start the private PostgreSQL again; it recovers from its write-ahead log. */
  START_POSTGRES(false, false);

  private final boolean store;
  private final boolean proxy;

  FaultAction(boolean store, boolean proxy) {
    this.store = store;
    this.proxy = proxy;
  }

  /** Whether the fault can lose or refuse idempotency records (answers may change after it). */
  public boolean touchesStore() {
    return store;
  }

  /** Whether the fault goes through the TCP fault proxy. */
  public boolean needsProxy() {
    return proxy;
  }

  /** Whether the scenario needs a PostgreSQL server of its own, which the fault stops. */
  public boolean needsPrivatePostgres() {
    return this == STOP_POSTGRES || this == START_POSTGRES;
  }

  /**
   * The action that ends this one's effect ({@code heal} a latency or a partition, {@code
   * start-postgres} a stopped server), or null for one that is over when it has been done.
   */
  public FaultAction endedBy() {
    return switch (this) {
      case DB_LATENCY, REDIS_LATENCY, PARTITION -> HEAL;
      case STOP_POSTGRES -> START_POSTGRES;
      default -> null;
    };
  }

  /** Whether the scenario's Redis must be a primary with a replica behind a Sentinel. */
  public boolean needsSentinel() {
    return this == FAILOVER_REDIS;
  }

  /** The name in scenario files: lower case with dashes. */
  public String fileName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** The action written {@code name} in a scenario file, if any. */
  public static Optional<FaultAction> ofFileName(String name) {
    return Arrays.stream(values()).filter(a -> a.fileName().equals(name)).findFirst();
  }
}
