package dev.idem.spring.aot.internal;

import dev.idem.spring.ai.internal.ToolCalls;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.util.ReflectionUtils;

/**
 * What a native image or an AOT-processed application needs of Idem beyond what Spring infers: the
 * schema files the JDBC store, Flyway and Liquibase read from the class path, the method the key
 * expression of a tool without a key calls for the key in an MCP call's {@code _meta}, and the two
 * an event listener's key calls for its event's class name. Registered through {@code
 * META-INF/spring/aot.factories}.
 */
public final class IdemRuntimeHints implements RuntimeHintsRegistrar {

  /** The class path resources Idem reads at run time, as patterns. */
  static final String[] RESOURCES = {
    "dev/idem/jdbc/flyway/*/beforeMigrate__idem_tables.sql", "dev/idem/jdbc/liquibase/changelog.xml"
  };

  @Override
  public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
    for (String pattern : RESOURCES) {
      hints.resources().registerPattern(pattern);
    }
    hints.reflection().registerType(ToolCalls.class, MemberCategory.INVOKE_PUBLIC_METHODS);
    hints
        .reflection()
        .registerMethod(
            Objects.requireNonNull(ReflectionUtils.findMethod(Object.class, "getClass")),
            ExecutableMode.INVOKE)
        .registerMethod(
            Objects.requireNonNull(ReflectionUtils.findMethod(Class.class, "getSimpleName")),
            ExecutableMode.INVOKE);
  }
}
