package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import org.junit.jupiter.api.Test;

class SpringTransactionConnectionTest {

  @Test
  void refusesANullDataSourceAtOnce() {
    assertThatNullPointerException()
        .isThrownBy(() -> new SpringTransactionConnection(null))
        .withMessageContaining("dataSource");
  }
}
