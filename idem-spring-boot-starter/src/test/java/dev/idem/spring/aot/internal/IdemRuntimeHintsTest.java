package dev.idem.spring.aot.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.spring.Idempotent;
import dev.idem.spring.ai.internal.ToolCalls;
import dev.idem.spring.messaging.IdempotentListener;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.io.support.SpringFactoriesLoader;

/** What an AOT-processed or native application needs of Idem is registered as hints. */
class IdemRuntimeHintsTest {

  private final RuntimeHints hints = new RuntimeHints();

  @Test
  void everyResourceIdemShipsIsRegistered() throws IOException {
    new IdemRuntimeHints().registerHints(hints, getClass().getClassLoader());

    Resource[] shipped =
        new PathMatchingResourcePatternResolver().getResources("classpath*:dev/idem/**/*.*");
    List<String> resources =
        java.util.Arrays.stream(shipped)
            .map(IdemRuntimeHintsTest::shippedPath)
            .filter(path -> path != null && !path.endsWith(".class"))
            .toList();

    assertThat(resources)
        .as("idem-jdbc's schema files are on the test class path")
        .contains("dev/idem/jdbc/flyway/postgresql/beforeMigrate__idem_tables.sql")
        .allSatisfy(
            path ->
                assertThat(RuntimeHintsPredicates.resource().forResource(path))
                    .as(path)
                    .accepts(hints));
  }

  @Test
  void theKeyOfAToolCallsMetaIsReadableInANativeImage() throws NoSuchMethodException {
    new IdemRuntimeHints().registerHints(hints, getClass().getClassLoader());

    assertThat(
            RuntimeHintsPredicates.reflection()
                .onMethodInvocation(ToolCalls.class.getMethod("metaKey", String.class)))
        .accepts(hints);
  }

  @Test
  void theClassNameInAnEventListenersKeyIsReadableInANativeImage() throws NoSuchMethodException {
    new IdemRuntimeHints().registerHints(hints, getClass().getClassLoader());

    assertThat(
            RuntimeHintsPredicates.reflection()
                .onMethodInvocation(Object.class.getMethod("getClass")))
        .accepts(hints);
    assertThat(
            RuntimeHintsPredicates.reflection()
                .onMethodInvocation(Class.class.getMethod("getSimpleName")))
        .accepts(hints);
  }

  @Test
  void theRegistrarsAreListedForSpringsAotProcessing() {
    SpringFactoriesLoader aot =
        SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories");

    assertThat(aot.load(org.springframework.aot.hint.RuntimeHintsRegistrar.class))
        .hasAtLeastOneElementOfType(IdemRuntimeHints.class);
    assertThat(aot.load(org.springframework.beans.factory.aot.BeanRegistrationAotProcessor.class))
        .hasAtLeastOneElementOfType(IdempotentMethodHints.class);
  }

  @Test
  void theResultsAndParametersOfGuardedMethodsAreOpenToReflection() {
    new IdempotentMethodHints()
        .register(hints.reflection(), IdempotentMethodHints.typesOf(Payments.class));

    assertThat(RuntimeHintsPredicates.reflection().onType(Receipt.class)).accepts(hints);
    assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Order.class, "id"))
        .as("a key expression reads #order.id")
        .accepts(hints);
    assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Receipt.class, "status"))
        .as("the codec writes the result's properties")
        .accepts(hints);
    assertThat(RuntimeHintsPredicates.reflection().onType(Refund.class)).accepts(hints);
    assertThat(RuntimeHintsPredicates.reflection().onType(Message.class)).accepts(hints);
    assertThat(RuntimeHintsPredicates.reflection().onType(Unguarded.class)).rejects(hints);
  }

  @Test
  void aBeanWithoutGuardedMethodsContributesNothing() {
    assertThat(IdempotentMethodHints.typesOf(Unguarded.class)).isEmpty();
  }

  @Test
  void aScheduledJobsVoidResultIsNoTypeToReflectOn() {
    assertThat(IdempotentMethodHints.typesOf(Jobs.class)).isEmpty();
  }

  // The resource's path inside a jar or a main classes folder; null for a test resource.
  private static String shippedPath(Resource resource) {
    try {
      String url = resource.getURL().toString();
      if (url.contains("!/")) {
        return url.substring(url.lastIndexOf("!/") + 2);
      }
      return url.contains("/test-classes/")
          ? null
          : url.substring(url.lastIndexOf("/classes/") + "/classes/".length());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  record Order(String id, long cents) {}

  record Receipt(String orderId, String status) {}

  record Refund(String id) {}

  record Message(String id) {}

  record Unguarded(String value) {}

  static class Jobs {
    @Idempotent
    public void reconcile() {}
  }

  static class Payments {
    @Idempotent(key = "#order.id")
    public Receipt pay(Order order) {
      return new Receipt(order.id(), "paid");
    }

    @Idempotent(key = "#refund.id")
    public CompletableFuture<Refund> refund(Refund refund) {
      return CompletableFuture.completedFuture(refund);
    }

    @IdempotentListener(value = "orders", key = "#message.id")
    public void on(Message message) {}

    public Unguarded plain(Unguarded value) {
      return value;
    }
  }
}
