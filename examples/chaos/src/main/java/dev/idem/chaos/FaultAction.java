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
  /** Take back every proxy fault (latency off). */
  HEAL(false, true),
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

  /** The name in scenario files: lower case with dashes. */
  public String fileName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** The action written {@code name} in a scenario file, if any. */
  public static Optional<FaultAction> ofFileName(String name) {
    return Arrays.stream(values()).filter(a -> a.fileName().equals(name)).findFirst();
  }
}
