package dev.idem.spring;

import dev.idem.core.IdempotencyConfig;

/**
 * Adjusts the config of one or more operations beyond what properties can say, such as which
 * exceptions are terminal. Every customizer bean is applied, in order, to every operation's builder
 * after the properties.
 */
@FunctionalInterface
public interface IdempotencyPolicyCustomizer {

  /**
   * @param operation the operation's name ({@code ""} for the defaults)
   * @param builder the config built so far from properties
   */
  void customize(String operation, IdempotencyConfig.Builder builder);
}
