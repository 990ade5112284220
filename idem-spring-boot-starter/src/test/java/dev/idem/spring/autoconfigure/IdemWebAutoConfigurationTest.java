package dev.idem.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.spring.web.IdempotencyFilter;
import dev.idem.spring.web.IdempotencyScopeResolver;
import dev.idem.spring.web.TokenController;
import dev.idem.spring.web.internal.IdemExceptionAdvice;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

class IdemWebAutoConfigurationTest {

  private final WebApplicationContextRunner runner =
      new WebApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(IdemAutoConfiguration.class, IdemWebAutoConfiguration.class));

  @Test
  void aServletApplicationGetsTheFilterTheScopeResolverAndTheTokenEndpoint() {
    runner.run(
        context ->
            assertThat(context)
                .hasSingleBean(IdempotencyFilter.class)
                .hasSingleBean(IdempotencyScopeResolver.class)
                .hasSingleBean(TokenController.class));
  }

  @Test
  void httpSupportCanBeSwitchedOff() {
    runner
        .withPropertyValues("idem.http.enabled=false")
        .run(
            context ->
                assertThat(context)
                    .doesNotHaveBean(IdempotencyFilter.class)
                    .doesNotHaveBean(TokenController.class));
  }

  @Test
  void theProblemAnswersToEscapedIdemExceptionsAreOnUnlessSwitchedOff() {
    runner.run(context -> assertThat(context).hasSingleBean(IdemExceptionAdvice.class));
    runner
        .withPropertyValues("idem.http.problem-answers=false")
        .run(
            context ->
                assertThat(context)
                    .hasSingleBean(IdempotencyFilter.class)
                    .doesNotHaveBean(IdemExceptionAdvice.class));
  }

  @Test
  void anEmptyTokenPathLeavesTheEndpointOut() {
    runner
        .withPropertyValues("idem.http.token-path=")
        .run(
            context ->
                assertThat(context)
                    .hasSingleBean(IdempotencyFilter.class)
                    .doesNotHaveBean(TokenController.class));
  }

  @Test
  void aScopeResolverOfTheApplicationsOwnReplacesTheDefault() {
    IdempotencyScopeResolver tenant = request -> request.getHeader("X-Tenant");
    runner
        .withBean(IdempotencyScopeResolver.class, () -> tenant)
        .run(
            context ->
                assertThat(context.getBean(IdempotencyScopeResolver.class)).isSameAs(tenant));
  }

  @Test
  void aProtectedHandlerThatAnswersAsynchronouslyStopsTheApplication() {
    runner
        .withConfiguration(
            AutoConfigurations.of(
                org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration.class))
        .withUserConfiguration(AsyncController.class)
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .hasStackTraceContaining("cannot protect")
                    .hasStackTraceContaining("AsyncController#charge()")
                    .hasStackTraceContaining("returns java.util.concurrent.CompletableFuture"));
  }

  @Test
  void anUnprotectedAsynchronousHandlerIsLeftAlone() {
    runner
        .withConfiguration(
            AutoConfigurations.of(
                org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration.class))
        .withUserConfiguration(PlainAsyncController.class)
        .run(context -> assertThat(context).hasNotFailed());
  }

  @Test
  void aHandlerWhoseDurationIsWrongStopsTheApplication() {
    runner
        .withConfiguration(
            AutoConfigurations.of(
                org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration.class))
        .withUserConfiguration(MisspeltController.class)
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .hasStackTraceContaining("@Idempotent(waitFor = \"${charges.wait:ten}\")")
                    .hasStackTraceContaining("MisspeltController#charge()")
                    .hasStackTraceContaining("'ten' is not a duration"));
  }

  @Test
  void aHandlerThePathsProtectOnSomeOfItsRoutesOnlyStopsTheApplication() {
    runner
        .withConfiguration(
            AutoConfigurations.of(
                org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration.class))
        .withPropertyValues("idem.http.paths=/api/**")
        .withUserConfiguration(TwoRoutesController.class)
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .hasStackTraceContaining("TwoRoutesController.charge()")
                    .hasStackTraceContaining("[POST /api/**]")
                    .hasStackTraceContaining("not on [/legacy/charges]"));
  }

  @Test
  void aHandlerThePathsProtectOnAllItsRoutesStarts() {
    runner
        .withConfiguration(
            AutoConfigurations.of(
                org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration.class))
        .withPropertyValues("idem.http.paths=/api/**,/legacy/**")
        .withUserConfiguration(TwoRoutesController.class)
        .run(context -> assertThat(context).hasNotFailed());
  }

  @org.springframework.web.bind.annotation.RestController
  static class TwoRoutesController {
    @org.springframework.web.bind.annotation.PostMapping({"/api/charges", "/legacy/charges"})
    String charge() {
      return "charged";
    }
  }

  @org.springframework.web.bind.annotation.RestController
  static class MisspeltController {
    @dev.idem.spring.Idempotent(waitFor = "${charges.wait:ten}")
    @org.springframework.web.bind.annotation.PostMapping("/charges")
    String charge() {
      return "charged";
    }
  }

  @org.springframework.web.bind.annotation.RestController
  static class AsyncController {
    @dev.idem.spring.Idempotent
    @org.springframework.web.bind.annotation.PostMapping("/charges")
    java.util.concurrent.CompletableFuture<String> charge() {
      return java.util.concurrent.CompletableFuture.completedFuture("charged");
    }
  }

  @org.springframework.web.bind.annotation.RestController
  static class PlainAsyncController {
    @org.springframework.web.bind.annotation.GetMapping("/charges")
    java.util.concurrent.CompletableFuture<String> charges() {
      return java.util.concurrent.CompletableFuture.completedFuture("none");
    }
  }
}
