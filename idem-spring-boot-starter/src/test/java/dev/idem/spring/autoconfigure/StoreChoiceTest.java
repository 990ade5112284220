package dev.idem.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.spring.autoconfigure.internal.StoreUnavailableException;
import dev.idem.spring.autoconfigure.internal.StoreUnavailableFailureAnalyzer;
import java.util.Properties;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.support.PropertiesLoaderUtils;

/** How the starter picks its store, and how it refuses one it cannot build. */
@ExtendWith(OutputCaptureExtension.class)
class StoreChoiceTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(IdemAutoConfiguration.class));

  @Test
  void aDataSourceWithoutIdemJdbcGivesMemoryAndAWarningNamingTheModule(CapturedOutput output) {
    runner
        .withBean(DataSource.class, StoreChoiceTest::h2)
        .withClassLoader(new FilteredClassLoader("dev.idem.jdbc"))
        .run(
            context -> {
              assertThat(context.getBean(IdempotencyStore.class))
                  .isInstanceOf(InMemoryIdempotencyStore.class);
              assertThat(output)
                  .contains("add dev.idem:idem-jdbc")
                  .contains("stores its records in memory");
            });
  }

  @Test
  void aNamedStoreWhoseModuleIsMissingStopsTheStartWithWhatToAdd() {
    runner
        .withPropertyValues("idem.store=jdbc")
        .withBean(DataSource.class, StoreChoiceTest::h2)
        .withClassLoader(new FilteredClassLoader("dev.idem.jdbc"))
        .run(context -> assertRefused(context.getStartupFailure(), "dev.idem:idem-jdbc"));
    runner
        .withPropertyValues("idem.store=redis")
        .withClassLoader(new FilteredClassLoader("dev.idem.redis"))
        .run(context -> assertRefused(context.getStartupFailure(), "dev.idem:idem-redis"));
  }

  @Test
  void aNamedStoreWithNothingToBuildItOnStopsTheStart() {
    runner
        .withPropertyValues("idem.store=redis")
        .run(
            context ->
                assertRefused(context.getStartupFailure(), "spring-boot-starter-data-redis"));
    runner
        .withPropertyValues("idem.store=jdbc")
        .run(context -> assertRefused(context.getStartupFailure(), "spring.datasource.url"));
  }

  @Test
  void theFailureAnalyzerIsRegisteredWithSpringBoot() throws Exception {
    Properties factories =
        PropertiesLoaderUtils.loadProperties(
            new ClassPathResource(
                "META-INF/spring.factories", IdemAutoConfiguration.class.getClassLoader()));
    assertThat(factories.getProperty(FailureAnalyzer.class.getName()))
        .contains(StoreUnavailableFailureAnalyzer.class.getName());
  }

  private static void assertRefused(Throwable failure, String action) {
    assertThat(failure).isNotNull();
    FailureAnalysis analysis = new StoreUnavailableFailureAnalyzer().analyze(failure);
    assertThat(analysis).as("analysed as a missing store: %s", failure).isNotNull();
    assertThat(analysis.getAction()).contains(action);
    assertThat(analysis.getCause()).isInstanceOf(StoreUnavailableException.class);
  }

  private static DataSource h2() {
    JdbcDataSource h2 = new JdbcDataSource();
    h2.setURL("jdbc:h2:mem:idem-store-choice;DB_CLOSE_DELAY=-1");
    return h2;
  }
}
