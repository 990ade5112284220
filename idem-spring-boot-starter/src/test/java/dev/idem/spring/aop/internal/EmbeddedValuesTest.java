package dev.idem.spring.aop.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;

class EmbeddedValuesTest {

  @Test
  void resolvesPlaceholdersAsTheBeanFactoryDoes() {
    DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
    beans.addEmbeddedValueResolver(text -> text.replace("${lease}", "2m"));

    assertThat(EmbeddedValues.resolver(beans).apply("${lease}")).isEqualTo("2m");
  }

  @Test
  void aTextThatResolvesToNothingIsRefusedWithTheTextNamed() {
    // a resolver may answer null (a SpEL default of null): the attribute's check reports it
    DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
    beans.addEmbeddedValueResolver(text -> null);
    UnaryOperator<String> resolver = EmbeddedValues.resolver(beans);

    assertThatIllegalArgumentException()
        .isThrownBy(() -> resolver.apply("${idem.lease}"))
        .withMessageContaining("'${idem.lease}' resolves to nothing");
  }
}
