package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.resume.Completer;
import org.junit.jupiter.api.Test;

/** The completer's properties default to the core completer's own settings. */
class IdemCompleterPropertiesTest {

  @Test
  void theDefaultsAreTheCoreCompletersOwn() {
    IdemCompleterProperties defaults = new IdemCompleterProperties();
    assertThat(defaults.getMaxAttempts()).isEqualTo(Completer.DEFAULT_MAX_ATTEMPTS);
    assertThat(defaults.getFirstBackoff()).isEqualTo(Completer.DEFAULT_FIRST_BACKOFF);
    assertThat(defaults.getMaxBackoff()).isEqualTo(Completer.DEFAULT_MAX_BACKOFF);
    assertThat(defaults.getBatch()).isEqualTo(Completer.DEFAULT_BATCH);
  }
}
