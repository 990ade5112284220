package dev.idem.spring;

import dev.idem.core.IdempotencyConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
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

  /**
   * The JSON fields that {@code operation} leaves out of its fingerprints: {@code
   * idem.policies.<operation>.ignore-fields}, or {@code idem.defaults.ignore-fields} when that is
   * unset.
   */
  public Set<String> ignoredFields(String operation) {
    IdemProperties.Policy own = properties.getPolicies().get(operation);
    List<String> fields =
        own != null && own.getIgnoreFields() != null
            ? own.getIgnoreFields()
            : properties.getDefaults().getIgnoreFields();
    return fields == null ? Set.of() : Set.copyOf(fields);
  }

  /**
   * The HTTP statuses that {@code operation} answers without storing them, so that a retry runs
   * again: {@code idem.policies.<operation>.retryable-statuses}, or {@code
   * idem.defaults.retryable-statuses} when that is unset. 5xx answers are never stored anyway.
   */
  public Set<Integer> retryableStatuses(String operation) {
    IdemProperties.Policy own = properties.getPolicies().get(operation);
    List<Integer> statuses =
        own != null && own.getRetryableStatuses() != null
            ? own.getRetryableStatuses()
            : properties.getDefaults().getRetryableStatuses();
    return statuses == null ? Set.of() : Set.copyOf(statuses);
  }

  /**
   * The config of {@code operation} with the overrides of an {@link Idempotent} annotation ({@code
   * waitMillis}, {@code leaseSeconds}, {@code retentionSeconds}) applied on top.
   */
  public IdempotencyConfig forAnnotation(String operation, Idempotent idempotent) {
    IdempotencyConfig base = forOperation(operation);
    if (idempotent.waitMillis() < 0
        && idempotent.leaseSeconds() <= 0
        && idempotent.retentionSeconds() <= 0) {
      return base;
    }
    IdempotencyConfig.Builder builder = IdempotencyConfig.from(base);
    if (idempotent.waitMillis() == 0) {
      builder.rejectInProgress();
    } else if (idempotent.waitMillis() > 0) {
      builder.waitInProgress(Duration.ofMillis(idempotent.waitMillis()));
    }
    if (idempotent.leaseSeconds() > 0) {
      builder.lease(Duration.ofSeconds(idempotent.leaseSeconds()));
    }
    if (idempotent.retentionSeconds() > 0) {
      builder.retention(Duration.ofSeconds(idempotent.retentionSeconds()));
    }
    return builder.build();
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
