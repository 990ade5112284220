package dev.idem.spring;

import dev.idem.core.IdempotencyConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link IdempotencyConfig} of each operation: {@code idem.defaults}, overlaid with {@code
 * idem.policies.<operation>}, then every {@link IdempotencyPolicyCustomizer}. Built once per
 * operation and cached.
 */
public final class IdemPolicies {

  private final IdemProperties properties;
  private final List<IdempotencyPolicyCustomizer> customizers;
  private final Map<String, IdempotencyConfig> cache = new ConcurrentHashMap<>();

  public IdemPolicies(IdemProperties properties, List<IdempotencyPolicyCustomizer> customizers) {
    this.properties = properties;
    this.customizers = List.copyOf(customizers);
  }

  /** The config for calls that name no operation. */
  public IdempotencyConfig defaults() {
    return forOperation("");
  }

  /** The config of {@code operation}; the defaults when it has no policy of its own. */
  public IdempotencyConfig forOperation(String operation) {
    return cache.computeIfAbsent(operation, this::build);
  }

  private IdempotencyConfig build(String operation) {
    IdempotencyConfig.Builder builder = IdempotencyConfig.custom();
    apply(properties.getDefaults(), builder);
    IdemProperties.Policy own = properties.getPolicies().get(operation);
    if (own != null && !operation.isEmpty()) {
      apply(own, builder);
    }
    for (IdempotencyPolicyCustomizer customizer : customizers) {
      customizer.customize(operation, builder);
    }
    return builder.build();
  }

  private static void apply(IdemProperties.Policy policy, IdempotencyConfig.Builder builder) {
    if (policy.getLease() != null) {
      builder.lease(policy.getLease());
    }
    if (policy.getRetention() != null) {
      builder.retention(policy.getRetention());
    }
    Duration wait = policy.getWait();
    if (wait != null) {
      if (wait.isZero() || wait.isNegative()) {
        builder.rejectInProgress();
      } else {
        builder.waitInProgress(wait);
      }
    }
    if (policy.getRetryAfter() != null) {
      builder.retryAfter(policy.getRetryAfter());
    }
    if (policy.getFailOpen() != null) {
      builder.failOpen(policy.getFailOpen());
    }
  }
}
