package dev.idem.spring.aop.internal;

import java.util.function.UnaryOperator;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;

/** Placeholders in annotation attributes, resolved as the bean factory resolves them. */
public final class EmbeddedValues {

  private EmbeddedValues() {}

  /**
   * Resolves placeholders with {@code beanFactory}; a text that resolves to nothing is refused with
   * {@link IllegalArgumentException}, which the checks of annotations report with the attribute.
   */
  public static UnaryOperator<String> resolver(ConfigurableBeanFactory beanFactory) {
    return text -> {
      String resolved = beanFactory.resolveEmbeddedValue(text);
      if (resolved == null) {
        throw new IllegalArgumentException("'" + text + "' resolves to nothing");
      }
      return resolved;
    };
  }
}
