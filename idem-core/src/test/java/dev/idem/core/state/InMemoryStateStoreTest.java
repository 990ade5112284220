package dev.idem.core.state;

import static dev.idem.core.state.Status.PENDING;
import static dev.idem.core.state.Status.PROCESSING;
import static dev.idem.core.state.Status.SUCCESS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import org.junit.jupiter.api.Test;

class InMemoryStateStoreTest {

  private final InMemoryStateStore<String, Status> store = new InMemoryStateStore<>();

  @Test
  void findsNothingForAnUnknownId() {
    assertThat(store.find("order-1")).isEmpty();
  }

  @Test
  void findsTheStateItWasSeededWith() {
    store.put("order-1", PENDING);

    assertThat(store.find("order-1")).contains(PENDING);
  }

  @Test
  void movesARecordOnlyFromTheExpectedState() {
    store.put("order-1", PENDING);

    assertThat(store.compareAndSet("order-1", PROCESSING, SUCCESS)).isFalse();
    assertThat(store.find("order-1")).contains(PENDING);
    assertThat(store.compareAndSet("order-1", PENDING, PROCESSING)).isTrue();
    assertThat(store.find("order-1")).contains(PROCESSING);
  }

  @Test
  void neverCreatesARecordThroughCompareAndSet() {
    assertThat(store.compareAndSet("order-1", PENDING, PROCESSING)).isFalse();
    assertThat(store.find("order-1")).isEmpty();
  }

  @Test
  void rejectsNulls() {
    assertThatNullPointerException().isThrownBy(() -> store.put(null, PENDING));
    assertThatNullPointerException().isThrownBy(() -> store.put("order-1", null));
    assertThatNullPointerException().isThrownBy(() -> store.find(null));
    assertThatNullPointerException()
        .isThrownBy(() -> store.compareAndSet("order-1", null, PENDING));
  }
}
