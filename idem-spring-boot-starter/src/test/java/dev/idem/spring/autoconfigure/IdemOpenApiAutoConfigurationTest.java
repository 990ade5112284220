package dev.idem.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.spring.openapi.IdempotencyOpenApiCustomizer;
import dev.idem.spring.web.IdempotencyFilter;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

class IdemOpenApiAutoConfigurationTest {

  private static final AutoConfigurations IDEM =
      AutoConfigurations.of(
          IdemAutoConfiguration.class,
          IdemWebAutoConfiguration.class,
          IdemOpenApiAutoConfiguration.class);

  private final WebApplicationContextRunner runner =
      new WebApplicationContextRunner().withConfiguration(IDEM);

  @Test
  void withSpringdocTheGuardedOperationsAreDocumented() {
    runner.run(
        context ->
            assertThat(context).hasNotFailed().hasSingleBean(IdempotencyOpenApiCustomizer.class));
  }

  @Test
  void withoutSpringdocTheFilterWorksAndNothingIsDocumented() {
    runner
        .withClassLoader(new FilteredClassLoader("org.springdoc", "io.swagger"))
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .hasSingleBean(IdempotencyFilter.class)
                    .doesNotHaveBean(IdempotencyOpenApiCustomizer.class));
  }

  @Test
  void withoutTheFilterThereIsNothingToDocument() {
    runner
        .withPropertyValues("idem.http.enabled=false")
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .doesNotHaveBean(IdempotencyOpenApiCustomizer.class));
  }

  @Test
  void anApplicationThatIsNoServletApplicationGetsNoCustomizer() {
    new ApplicationContextRunner()
        .withConfiguration(IDEM)
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .doesNotHaveBean(IdempotencyOpenApiCustomizer.class));
  }

  @Test
  void aCustomizerOfTheApplicationsOwnReplacesTheDefault() {
    runner
        .withBean(
            "mine",
            IdempotencyOpenApiCustomizer.class,
            () -> new IdempotencyOpenApiCustomizer(null, null))
        .run(
            context ->
                assertThat(context.getBean(IdempotencyOpenApiCustomizer.class))
                    .isSameAs(context.getBean("mine")));
  }
}
