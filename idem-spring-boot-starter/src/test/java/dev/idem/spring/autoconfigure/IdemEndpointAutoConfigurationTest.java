package dev.idem.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.spring.actuate.IdempotencyEndpoint;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class IdemEndpointAutoConfigurationTest {

  private static final String EXPOSED = "management.endpoints.web.exposure.include=idempotency";

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  IdemAutoConfiguration.class, IdemEndpointAutoConfiguration.class));

  @Test
  void isThereOnTheApplicationsStoreOnceExposed() {
    IdempotencyStore mine = new InMemoryIdempotencyStore();
    runner
        .withBean(IdempotencyStore.class, () -> mine)
        .withPropertyValues(EXPOSED)
        .run(context -> assertThat(context).hasSingleBean(IdempotencyEndpoint.class));
  }

  @Test
  void isLeftOutUnlessExposedAsEveryEndpointIs() {
    runner.run(context -> assertThat(context).doesNotHaveBean(IdempotencyEndpoint.class));
    runner
        .withPropertyValues("management.endpoints.web.exposure.include=health")
        .run(context -> assertThat(context).doesNotHaveBean(IdempotencyEndpoint.class));
  }

  @Test
  void isLeftOutWhenItsAccessIsNone() {
    runner
        .withPropertyValues(EXPOSED, "management.endpoint.idempotency.access=NONE")
        .run(context -> assertThat(context).doesNotHaveBean(IdempotencyEndpoint.class));
  }

  @Test
  void isLeftOutWithoutActuator() {
    runner
        .withPropertyValues(EXPOSED)
        .withClassLoader(new FilteredClassLoader(Endpoint.class))
        .run(context -> assertThat(context).doesNotHaveBean(IdempotencyEndpoint.class));
  }

  @Test
  void givesWayToAnEndpointOfTheApplication() {
    IdempotencyEndpoint mine = new IdempotencyEndpoint(new InMemoryIdempotencyStore());
    runner
        .withBean(IdempotencyEndpoint.class, () -> mine)
        .withPropertyValues(EXPOSED)
        .run(context -> assertThat(context.getBean(IdempotencyEndpoint.class)).isSameAs(mine));
  }
}
