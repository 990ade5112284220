package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import org.assertj.core.api.AbstractThrowableAssert;
import org.springframework.boot.test.context.assertj.ApplicationContextAssertProvider;

/** How the starter's tests check that Idem stopped an application's start, and why. */
public final class StartFailures {

  private StartFailures() {}

  /**
   * Asserts that {@code context} failed to start because of an {@link IllegalStateException} (the
   * failure's root cause, or the failure itself when it has none) whose message holds every one of
   * {@code reasons}.
   */
  public static void stoppedTheStart(
      ApplicationContextAssertProvider<?> context, String... reasons) {
    assertThat(context).hasFailed();
    Throwable root = context.getStartupFailure();
    while (root.getCause() != null) {
      root = root.getCause();
    }
    AbstractThrowableAssert<?, ?> cause =
        assertThat(root).isInstanceOf(IllegalStateException.class);
    for (String reason : reasons) {
      cause.hasMessageContaining(reason);
    }
  }
}
