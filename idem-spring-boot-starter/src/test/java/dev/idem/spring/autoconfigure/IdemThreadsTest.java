package dev.idem.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.ForwardingIdempotencyStore;
import dev.idem.core.store.Lease;
import dev.idem.spring.IdemThreads;
import dev.idem.spring.IdempotencyStoreDecorator;
import dev.idem.spring.StoreCallExecutor;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Idem's own threads follow {@code spring.threads.virtual.enabled}: virtual on Java 21 and later
 * when it is on, platform threads otherwise. The build runs this on Java 17 (where Boot keeps
 * platform threads whatever the property says) and on Java 25 (where it asks for virtual ones).
 */
class IdemThreadsTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(IdemAutoConfiguration.class))
          .withPropertyValues("idem.store=memory");

  private static final boolean VIRTUAL_THREADS_EXIST = Runtime.version().feature() >= 21;

  @Test
  void withVirtualThreadsOnTheStoreCallsRunOnVirtualThreadsWhereTheJavaHasThem() {
    runner
        .withPropertyValues("spring.threads.virtual.enabled=true")
        .run(
            context -> {
              assertThat(context.getBean(IdemThreads.class).virtual())
                  .isEqualTo(VIRTUAL_THREADS_EXIST);
              Thread used = threadOf(context.getBean(StoreCallExecutor.class));
              assertThat(isVirtual(used)).isEqualTo(VIRTUAL_THREADS_EXIST);
              assertThat(used.getName()).startsWith("idem-store-");
            });
  }

  @Test
  void theBuildsJava25LegRunsTheseSuitesOnVirtualThreads() {
    // scripts/test-java25 sets SPRING_THREADS_VIRTUAL_ENABLED for the starter's test JVM
    boolean asked = "true".equals(System.getenv("SPRING_THREADS_VIRTUAL_ENABLED"));
    runner.run(
        context ->
            assertThat(context.getBean(IdemThreads.class).virtual())
                .isEqualTo(asked && VIRTUAL_THREADS_EXIST));
  }

  @Test
  void withTheSettingOffIdemStartsDaemonPlatformThreads() {
    // off explicitly: the build's Java 25 leg turns it on for the whole JVM
    runner
        .withPropertyValues("spring.threads.virtual.enabled=false")
        .run(
            context -> {
              assertThat(context.getBean(IdemThreads.class).virtual()).isFalse();
              Thread used = threadOf(context.getBean(StoreCallExecutor.class));
              assertThat(isVirtual(used)).isFalse();
              assertThat(used.isDaemon()).isTrue();
            });
  }

  @Test
  void theEngineRenewsLeasesOnTheThreadsTheApplicationChose() {
    CompletableFuture<Thread> renewing = new CompletableFuture<>();
    runner
        .withPropertyValues("spring.threads.virtual.enabled=true")
        .withBean(
            IdempotencyStoreDecorator.class,
            () ->
                store ->
                    new ForwardingIdempotencyStore(store) {
                      @Override
                      public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
                        renewing.complete(Thread.currentThread());
                        return super.renew(lease, leaseDuration);
                      }
                    })
        .run(
            context -> {
              IdempotencyConfig shortLease =
                  IdempotencyConfig.custom().lease(Duration.ofMillis(300)).build();
              String answer =
                  context
                      .getBean(Idempotency.class)
                      .call(IdempotencyKey.of("threads", "k1"), Fingerprint.NONE)
                      .config(shortLease)
                      .run(
                          ctx -> {
                            renewing.get(10, TimeUnit.SECONDS); // the watchdog renewed meanwhile
                            return "done";
                          });
              assertThat(answer).isEqualTo("done");
              assertThat(isVirtual(renewing.get())).isEqualTo(VIRTUAL_THREADS_EXIST);
            });
  }

  private static Thread threadOf(StoreCallExecutor executor) throws Exception {
    CompletableFuture<Thread> ran = new CompletableFuture<>();
    executor.execute(() -> ran.complete(Thread.currentThread()));
    return ran.get(10, TimeUnit.SECONDS);
  }

  // Thread.isVirtual exists from Java 21; this module compiles for 17
  private static boolean isVirtual(Thread thread) throws Exception {
    return VIRTUAL_THREADS_EXIST && (boolean) Thread.class.getMethod("isVirtual").invoke(thread);
  }
}
