package dev.idem.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.testsupport.FaultInjectingStore;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class IdemHealthAutoConfigurationTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  IdemAutoConfiguration.class, IdemHealthAutoConfiguration.class));

  private static Health health(org.springframework.context.ApplicationContext context) {
    return context.getBean("idemHealthIndicator", HealthIndicator.class).health();
  }

  @Test
  void reportsUpAndNamesTheStoreWhenTheStoreAnswers() {
    runner.run(
        context -> {
          Health health = health(context);
          assertThat(health.getStatus()).isEqualTo(Status.UP);
          assertThat(health.getDetails()).containsEntry("store", "InMemoryIdempotencyStore");
        });
  }

  @Test
  void reportsDownWithTheExceptionWhileTheStoreFails() {
    FaultInjectingStore failing = new FaultInjectingStore(new InMemoryIdempotencyStore());
    runner
        .withBean(IdempotencyStore.class, () -> failing)
        .run(
            context -> {
              failing.failNext(FaultInjectingStore.Operation.FIND, Integer.MAX_VALUE);
              Health down = health(context);
              assertThat(down.getStatus()).isEqualTo(Status.DOWN);
              assertThat(down.getDetails().get("error").toString())
                  .contains("IdempotencyStoreException")
                  .contains("injected fault");

              failing.heal();
              assertThat(health(context).getStatus()).isEqualTo(Status.UP);
            });
  }

  @Test
  void isLeftOutWithoutTheHealthModuleOrWhenSwitchedOff() {
    runner
        .withClassLoader(new FilteredClassLoader(HealthIndicator.class))
        .run(context -> assertThat(context).doesNotHaveBean("idemHealthIndicator"));
    runner
        .withPropertyValues("management.health.idem.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean("idemHealthIndicator"));
  }
}
