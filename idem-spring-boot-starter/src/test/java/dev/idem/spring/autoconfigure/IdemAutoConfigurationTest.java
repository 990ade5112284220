package dev.idem.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Idempotency;
import dev.idem.core.InProgressPolicy;
import dev.idem.core.TokenService;
import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.spring.IdemPolicies;
import dev.idem.spring.IdempotencyPolicyCustomizer;
import dev.idem.spring.web.IdempotencyFilter;
import java.time.Duration;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class IdemAutoConfigurationTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(IdemAutoConfiguration.class, IdemWebAutoConfiguration.class));

  @Test
  void withoutDataSourceOrRedisTheStoreIsInMemory() {
    runner.run(
        context -> {
          assertThat(context.getBean(IdempotencyStore.class))
              .isInstanceOf(InMemoryIdempotencyStore.class);
          assertThat(context).hasSingleBean(Idempotency.class).hasSingleBean(TokenService.class);
          assertThat(context).doesNotHaveBean(IdempotencyFilter.class);
        });
  }

  @Test
  void aStoreOfTheApplicationsOwnReplacesIdems() {
    InMemoryIdempotencyStore own = new InMemoryIdempotencyStore();
    runner
        .withBean("ownStore", IdempotencyStore.class, () -> own)
        .run(context -> assertThat(context.getBean(IdempotencyStore.class)).isSameAs(own));
  }

  @Test
  void namedPoliciesOverlayTheDefaults() {
    runner
        .withPropertyValues(
            "idem.defaults.lease=45s",
            "idem.policies.payments.wait=2s",
            "idem.policies.payments.retention=1h")
        .run(
            context -> {
              IdemPolicies policies = context.getBean(IdemPolicies.class);
              assertThat(policies.defaults().lease()).isEqualTo(Duration.ofSeconds(45));
              assertThat(policies.defaults().inProgressPolicy()).isEqualTo(InProgressPolicy.REJECT);
              assertThat(policies.forOperation("payments").inProgressPolicy())
                  .isEqualTo(InProgressPolicy.WAIT);
              assertThat(policies.forOperation("payments").maxWait())
                  .isEqualTo(Duration.ofSeconds(2));
              assertThat(policies.forOperation("payments").lease())
                  .isEqualTo(Duration.ofSeconds(45));
              assertThat(policies.forOperation("payments").retention())
                  .isEqualTo(Duration.ofHours(1));
            });
  }

  @Test
  void customizersAdjustEveryPolicy() {
    IdempotencyPolicyCustomizer failOpenForReports =
        (operation, builder) -> builder.failOpen(operation.equals("reports"));
    runner
        .withBean(IdempotencyPolicyCustomizer.class, () -> failOpenForReports)
        .run(
            context -> {
              IdemPolicies policies = context.getBean(IdemPolicies.class);
              assertThat(policies.forOperation("reports").failOpen()).isTrue();
              assertThat(policies.defaults().failOpen()).isFalse();
            });
  }

  @Test
  void theStoreCanBeNamedExplicitly() {
    ApplicationContextRunner withDataSource =
        runner.withBean(DataSource.class, IdemAutoConfigurationTest::h2);
    withDataSource.run(
        context ->
            assertThat(context.getBean(IdempotencyStore.class))
                .as("picked without idem.store")
                .isInstanceOf(JdbcIdempotencyStore.class));
    withDataSource
        .withPropertyValues("idem.store=memory")
        .run(
            context ->
                assertThat(context.getBean(IdempotencyStore.class))
                    .isInstanceOf(InMemoryIdempotencyStore.class));
  }

  private static DataSource h2() {
    JdbcDataSource h2 = new JdbcDataSource();
    h2.setURL("jdbc:h2:mem:idem-autoconfiguration;DB_CLOSE_DELAY=-1");
    return h2;
  }
}
