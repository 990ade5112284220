package dev.idem.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.memory.InMemoryIdempotencyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class DuplicateWaiterTest {

  private static final int WAITERS = 150_000;

  // Nothing changes in the store, so only the waiter's own signals can wake a ticket.
  private final DuplicateWaiter waiter = new DuplicateWaiter(new InMemoryIdempotencyStore());
  private final IdempotencyKey key = IdempotencyKey.of("waiter", "k");

  @Test
  void aWaiterSubscribedWhileItsKeyIsSignalledIsWokenByTheNextSignal() throws Exception {
    assertThat(notWokenWhileRacing(() -> waiter.signal(key))).as("waiters not woken").isZero();
  }

  @Test
  void aWaiterSubscribedWhileAnotherLeavesIsWokenByTheNextSignal() throws Exception {
    assertThat(notWokenWhileRacing(() -> waiter.subscribe(key, Duration.ofSeconds(30)).close()))
        .as("waiters not woken")
        .isZero();
  }

  // Subscribes waiters one at a time while another thread keeps doing `race`, signals after each,
  // and counts the waiters not woken once the racer stopped and the key was signalled again. (Right
  // after the own signal a waiter may still be being woken on the racer's thread.)
  private int notWokenWhileRacing(Runnable race) throws Exception {
    AtomicBoolean done = new AtomicBoolean();
    CompletableFuture<Void> racer =
        CompletableFuture.runAsync(
            () -> {
              while (!done.get()) {
                race.run();
              }
            });
    List<DuplicateWaiter.Ticket> notYetWoken = new ArrayList<>();
    try {
      for (int i = 0; i < WAITERS; i++) {
        DuplicateWaiter.Ticket ticket = waiter.subscribe(key, Duration.ofSeconds(30));
        waiter.signal(key);
        if (isWoken(ticket)) {
          ticket.close();
        } else {
          notYetWoken.add(ticket);
        }
      }
    } finally {
      done.set(true);
      racer.get(10, TimeUnit.SECONDS);
    }
    waiter.signal(key);
    int notWoken = 0;
    for (DuplicateWaiter.Ticket ticket : notYetWoken) {
      notWoken += isWoken(ticket) ? 0 : 1;
      ticket.close();
    }
    return notWoken;
  }

  // A wait of a long slice (over 100 ms) that has ended at once: only a waiter already woken.
  private static boolean isWoken(DuplicateWaiter.Ticket ticket) {
    return ticket.next(TimeUnit.SECONDS.toNanos(10), 10).isDone();
  }
}
