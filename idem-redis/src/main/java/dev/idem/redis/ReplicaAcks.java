package dev.idem.redis;

import java.time.Duration;
import java.util.Objects;

/**
 * How many replicas must have a claim before it counts: after a fresh claim the store sends {@code
 * WAIT replicas timeout}, and a claim fewer replicas acknowledged in time is released and refused
 * ({@link dev.idem.core.IdempotencyStoreException}, HTTP 503), so that a failover to a replica
 * cannot lose a claim whose work has begun. It costs a round trip per first request and makes every
 * claim wait for the slowest of the replicas it counts; a replica that is down refuses every claim
 * until it is back or the setting is lowered. For a standalone primary or one behind Sentinel; a
 * Redis Cluster routes {@code WAIT} to no particular node, so the Cluster store does not take it.
 *
 * @param replicas how many replicas must acknowledge (at least 1)
 * @param timeout how long a claim waits for them (above zero)
 */
public record ReplicaAcks(int replicas, Duration timeout) {

  public ReplicaAcks {
    Objects.requireNonNull(timeout, "timeout");
    if (replicas < 1) {
      throw new IllegalArgumentException("replicas must be at least 1, was " + replicas);
    }
    if (timeout.isZero() || timeout.isNegative()) {
      throw new IllegalArgumentException("timeout must be above zero, was " + timeout);
    }
  }
}
