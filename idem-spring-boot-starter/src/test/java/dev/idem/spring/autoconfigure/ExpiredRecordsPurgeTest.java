package dev.idem.spring.autoconfigure;

import static dev.idem.testsupport.Stages.now;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Outcome;
import dev.idem.spring.ExpiredRecordsPurge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Records past their retention leave the JDBC store by themselves, counted by a meter. */
class ExpiredRecordsPurgeTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  IdemAutoConfiguration.class, IdemMetricsAutoConfiguration.class))
          .withBean(DataSource.class, ExpiredRecordsPurgeTest::h2)
          .withBean(MeterRegistry.class, SimpleMeterRegistry::new);

  @Test
  void expiredRecordsAreDeletedWithoutCodeOfTheApplicationsAndLiveOnesStay() {
    runner
        .withPropertyValues("idem.jdbc.cleanup.interval=50ms", "idem.jdbc.cleanup.batch-size=2")
        .run(
            context -> {
              IdempotencyStore store = context.getBean(IdempotencyStore.class);
              IdempotencyKey live = completed(store, Duration.ofHours(1));
              IdempotencyKey[] expired = {
                completed(store, Duration.ofMillis(1)),
                completed(store, Duration.ofMillis(1)),
                completed(store, Duration.ofMillis(1))
              };
              await()
                  .atMost(Duration.ofSeconds(20))
                  .until(
                      () ->
                          store.find(expired[0]).isEmpty()
                              && store.find(expired[1]).isEmpty()
                              && store.find(expired[2]).isEmpty()
                              && context.getBean(ExpiredRecordsPurge.class).purged() >= 3);
              assertThat(store.find(live)).isPresent();
              assertThat(
                      context
                          .getBean(MeterRegistry.class)
                          .get("idem.store.purged")
                          .functionCounter()
                          .count())
                  .isGreaterThanOrEqualTo(3);
            });
  }

  @Test
  void thePurgeCanBeSwitchedOffAndRefusesANonsenseInterval() {
    runner
        .withPropertyValues("idem.jdbc.cleanup.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean(ExpiredRecordsPurge.class));
    runner
        .withPropertyValues("idem.jdbc.cleanup.interval=0s")
        .run(
            context ->
                assertThat(context.getStartupFailure())
                    .rootCause()
                    .hasMessageContaining("idem.jdbc.cleanup.interval must be positive"));
  }

  private static IdempotencyKey completed(IdempotencyStore store, Duration retention) {
    IdempotencyKey key = IdempotencyKey.of("purge", UUID.randomUUID().toString());
    ClaimResult claimed =
        now(store.claim(ClaimRequest.of(key, Fingerprint.NONE, Duration.ofMinutes(1))));
    assertThat(
            now(
                store.complete(
                    ((ClaimResult.Claimed) claimed).lease(),
                    Outcome.success(new byte[] {1}),
                    retention)))
        .isTrue();
    return key;
  }

  private static DataSource h2() {
    JdbcDataSource h2 = new JdbcDataSource();
    h2.setURL("jdbc:h2:mem:idem-purge;DB_CLOSE_DELAY=-1");
    return h2;
  }
}
