package dev.idem.spring;

import dev.idem.core.IdempotencyConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * The {@link IdempotencyConfig} of each operation: {@code idem.defaults}, overlaid with {@code
 * idem.policies.<operation>}, then every {@link IdempotencyPolicyCustomizer}. Built once per
 * operation and cached.
 */
public final class IdemPolicies {

  private final IdemProperties properties;
  private final List<IdempotencyPolicyCustomizer> customizers;
  private final UnaryOperator<String> placeholders;
  private final Map<String, IdempotencyConfig> cache = new ConcurrentHashMap<>();

  /** Policies whose annotations take no placeholders. */
  public IdemPolicies(IdemProperties properties, List<IdempotencyPolicyCustomizer> customizers) {
    this(properties, customizers, UnaryOperator.identity());
  }

  /**
   * @param placeholders resolves the {@code ${...}} placeholders of {@link Idempotent}'s durations,
   *     such as {@code Environment::resolveRequiredPlaceholders}
   */
  public IdemPolicies(
      IdemProperties properties,
      List<IdempotencyPolicyCustomizer> customizers,
      UnaryOperator<String> placeholders) {
    this.properties = properties;
    this.customizers = List.copyOf(customizers);
    this.placeholders = placeholders;
  }

  /** Whether {@code idem.policies.<operation>} names a policy. */
  public boolean hasPolicy(String operation) {
    return properties.getPolicies().containsKey(operation);
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
   * Whether repeats of {@code operation}'s completed keys are answered from the local replay cache:
   * {@code idem.policies.<operation>.replay-cache}, or {@code idem.defaults.replay-cache} when that
   * is unset; false by default.
   */
  public boolean replayCached(String operation) {
    IdemProperties.Policy own = properties.getPolicies().get(operation);
    Boolean cached =
        own != null && own.getReplayCache() != null
            ? own.getReplayCache()
            : properties.getDefaults().getReplayCache();
    return Boolean.TRUE.equals(cached);
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
   * The config of {@code operation} with the durations of an {@link Idempotent} annotation ({@code
   * waitFor}, {@code lease}, {@code retention}, placeholders resolved) applied on top.
   *
   * @throws IllegalStateException when the annotation's durations are not valid ({@link
   *     #checkAnnotation})
   */
  public IdempotencyConfig forAnnotation(String operation, Idempotent idempotent) {
    IdempotencyConfig base = forOperation(operation);
    AnnotationDurations durations = AnnotationDurations.of(operation, idempotent, placeholders);
    if (durations.none()) {
      return base;
    }
    IdempotencyConfig.Builder builder = IdempotencyConfig.from(base);
    if (durations.waitFor() != null) {
      if (durations.waitFor().isZero()) {
        builder.rejectInProgress();
      } else {
        builder.waitInProgress(durations.waitFor());
      }
    }
    if (durations.lease() != null) {
      builder.lease(durations.lease());
    }
    if (durations.retention() != null) {
      builder.retention(durations.retention());
    }
    return builder.build();
  }

  /**
   * Checks the durations of an annotation on {@code operation}, placeholders resolved with {@code
   * placeholders}, so that a wrong one stops the application at start-up.
   *
   * @throws IllegalStateException naming the attribute when a value is not a duration, is negative,
   *     or is set beside its deprecated numeric twin
   */
  public static void checkAnnotation(
      String operation, Idempotent idempotent, UnaryOperator<String> placeholders) {
    AnnotationDurations.of(operation, idempotent, placeholders);
  }

  /** {@code text} with its {@code ${...}} placeholders resolved as the annotations' are. */
  public String resolvePlaceholders(String text) {
    return placeholders.apply(text);
  }

  /**
   * {@link #checkAnnotation(String, Idempotent, UnaryOperator)} with these policies' placeholders.
   */
  public void checkAnnotation(String operation, Idempotent idempotent) {
    checkAnnotation(operation, idempotent, placeholders);
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
