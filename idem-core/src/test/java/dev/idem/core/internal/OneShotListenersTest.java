package dev.idem.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class OneShotListenersTest {

  private static final int ADDS = 50_000;

  private final OneShotListeners<String> listeners = new OneShotListeners<>();
  private final String key = "k";

  @Test
  void aListenerAddedWhileTheKeyFiresRunsAtTheNextFire() throws Exception {
    int lost = whileRacing(() -> listeners.fire(key));
    assertThat(lost).as("listeners lost").isZero();
  }

  @Test
  void aListenerAddedWhileAnotherIsRemovedRunsAtTheNextFire() throws Exception {
    int lost = whileRacing(() -> listeners.add(key, () -> {}).run());
    assertThat(lost).as("listeners lost").isZero();
  }

  // Adds listeners one at a time while another thread keeps doing `race`, fires after each add, and
  // counts the listeners that had not run once the racer stopped and the key fired again. (Right
  // after the own fire a listener may still be running on the racer's thread.)
  private int whileRacing(Runnable race) throws Exception {
    AtomicBoolean done = new AtomicBoolean();
    CompletableFuture<Void> racer =
        CompletableFuture.runAsync(
            () -> {
              while (!done.get()) {
                race.run();
              }
            });
    List<AtomicInteger> notYetRun = new ArrayList<>();
    try {
      for (int i = 0; i < ADDS; i++) {
        AtomicInteger ran = new AtomicInteger();
        Runnable remove = listeners.add(key, ran::incrementAndGet);
        listeners.fire(key);
        if (ran.get() == 0) {
          notYetRun.add(ran);
        }
        remove.run();
      }
    } finally {
      done.set(true);
      racer.get(10, TimeUnit.SECONDS);
    }
    listeners.fire(key);
    return (int) notYetRun.stream().filter(ran -> ran.get() != 1).count();
  }
}
