package dev.idem.spring;

import java.time.Duration;

/**
 * The {@code idem.redis.*} properties: the Redis store's key prefix and replica acknowledgements.
 */
public class IdemRedisProperties {
  /** Prefix of every Redis key Idem writes. */
  private String keyPrefix = "idem:";

  /**
   * How many replicas must have a claim before it counts ({@code WAIT} after each fresh claim;
   * fewer in time and the claim is released and answered 503). 0, the default, waits for none: a
   * failover may then lose the last claims. Not for a Redis Cluster.
   */
  private int replicaAcks;

  /** How long a claim waits for {@code replica-acks} replicas. */
  private Duration replicaAckTimeout = Duration.ofMillis(100);

  public String getKeyPrefix() {
    return keyPrefix;
  }

  public void setKeyPrefix(String keyPrefix) {
    this.keyPrefix = keyPrefix;
  }

  public int getReplicaAcks() {
    return replicaAcks;
  }

  public void setReplicaAcks(int replicaAcks) {
    if (replicaAcks < 0) {
      throw new IllegalArgumentException(
          "idem.redis.replica-acks must be 0 or more, was " + replicaAcks);
    }
    this.replicaAcks = replicaAcks;
  }

  public Duration getReplicaAckTimeout() {
    return replicaAckTimeout;
  }

  public void setReplicaAckTimeout(Duration replicaAckTimeout) {
    if (replicaAckTimeout == null || replicaAckTimeout.isZero() || replicaAckTimeout.isNegative()) {
      throw new IllegalArgumentException(
          "idem.redis.replica-ack-timeout must be above zero, was " + replicaAckTimeout);
    }
    this.replicaAckTimeout = replicaAckTimeout;
  }
}
