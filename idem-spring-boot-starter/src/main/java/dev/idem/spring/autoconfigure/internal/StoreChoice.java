package dev.idem.spring.autoconfigure.internal;

import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/**
 * Whether a store is the one to build: {@code idem.store} names it, or is {@code auto} (the
 * default) and a bean the store is built on exists. Evaluated once the application's own beans are
 * registered, so what {@code /actuator/conditions} reports is what was seen.
 */
public abstract class StoreChoice extends SpringBootCondition implements ConfigurationCondition {

  private final String store;
  private final String[] beanTypes;

  StoreChoice(String store, String... beanTypes) {
    this.store = store;
    this.beanTypes = beanTypes;
  }

  /** The value of {@code idem.store}, lower case; {@code auto} when unset. */
  static String configured(ConditionContext context) {
    String value = context.getEnvironment().getProperty("idem.store", "auto");
    return value.strip().toLowerCase(Locale.ROOT);
  }

  /** Whether {@code type} is on the class path and {@code beans} holds a bean of it. */
  static boolean beanExists(
      @Nullable ListableBeanFactory beans, @Nullable ClassLoader loader, String type) {
    return beans != null
        && ClassUtils.isPresent(type, loader)
        && beans.getBeanNamesForType(ClassUtils.resolveClassName(type, loader), true, false).length
            > 0;
  }

  @Override
  public ConfigurationPhase getConfigurationPhase() {
    return ConfigurationPhase.REGISTER_BEAN;
  }

  @Override
  public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata meta) {
    String configured = configured(context);
    if (configured.equals(store)) {
      return ConditionOutcome.match("idem.store is " + store);
    }
    if (!configured.equals("auto")) {
      return ConditionOutcome.noMatch("idem.store is " + configured);
    }
    for (String type : beanTypes) {
      if (beanExists(context.getBeanFactory(), context.getClassLoader(), type)) {
        return ConditionOutcome.match("idem.store is auto and a " + type + " bean exists");
      }
    }
    return ConditionOutcome.noMatch(
        "idem.store is auto and no bean of " + String.join(", ", beanTypes) + " exists");
  }

  /** Redis: a Lettuce client of the application's, or Spring Data Redis's connection factory. */
  public static final class Redis extends StoreChoice {
    public Redis() {
      super(
          "redis",
          "io.lettuce.core.RedisClient",
          "io.lettuce.core.cluster.RedisClusterClient",
          "org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory");
    }
  }

  /** JDBC: a DataSource. */
  public static final class Jdbc extends StoreChoice {
    public Jdbc() {
      super("jdbc", "javax.sql.DataSource");
    }
  }

  /** Memory: named, or auto with nothing else chosen before it. */
  public static final class Memory extends StoreChoice {
    public Memory() {
      super("memory");
    }

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata meta) {
      String configured = configured(context);
      return configured.equals("memory") || configured.equals("auto")
          ? ConditionOutcome.match("idem.store is " + configured + " and no other store was built")
          : ConditionOutcome.noMatch("idem.store is " + configured);
    }
  }
}
