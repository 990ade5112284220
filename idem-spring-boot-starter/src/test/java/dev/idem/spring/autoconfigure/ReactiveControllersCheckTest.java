package dev.idem.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.spring.Idempotent;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Nothing is silently unprotected: {@code @Idempotent} on a WebFlux controller stops the start when
 * the WebFlux filter is turned off.
 */
class ReactiveControllersCheckTest {

  private final ReactiveWebApplicationContextRunner runner =
      new ReactiveWebApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(IdemAutoConfiguration.class, IdemAopAutoConfiguration.class))
          .withPropertyValues("idem.http.enabled=false");

  @Test
  void anIdempotentReactiveControllerStopsTheApplicationWithAMessageNamingIt() {
    runner
        .withUserConfiguration(ReactivePayments.class)
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .hasStackTraceContaining("ReactivePayments.pay")
                    .hasStackTraceContaining("idem.http.enabled=false"));
  }

  @Test
  void aReactiveControllerWithoutTheAnnotationStarts() {
    runner.withUserConfiguration(PlainController.class).run(c -> assertThat(c).hasNotFailed());
  }

  @RestController
  static class ReactivePayments {
    @Idempotent
    @PostMapping("/payments")
    String pay() {
      return "paid";
    }
  }

  @RestController
  static class PlainController {
    @PostMapping("/notes")
    String note() {
      return "noted";
    }
  }
}
