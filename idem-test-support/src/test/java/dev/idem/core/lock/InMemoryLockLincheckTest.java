package dev.idem.core.lock;

import dev.idem.testsupport.ModelChecks;
import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.junit.jupiter.api.Test;

/**
 * Model-checks the in-memory lock provider (the {@link StoredLockProvider} over its storage) with
 * Lincheck against {@link LockModel}: at most one handle holds a name, only the holder renews or
 * releases it, and a closed handle never touches its successor's lock. Attempts do not wait, and
 * the clock stands still, for the reason given in the store's model check.
 */
@Param(name = "thread", gen = ThreadIdGen.class)
@Param(name = "name", gen = IntGen.class, conf = "1:2")
public class InMemoryLockLincheckTest {

  private static final Duration LEASE = Duration.ofSeconds(10);
  private static final String[] NAMES = {"", "lock-1", "lock-2"};

  private final InMemoryLockProvider locks =
      new InMemoryLockProvider(MutableClock.stoppedAt(Instant.parse("2026-01-01T00:00:00Z")));
  // The handle each thread holds of each name; a thread reads and writes only its own.
  private final Map<Integer, LockHandle> handles = new ConcurrentHashMap<>();

  static int slot(int thread, int name) {
    return thread * 16 + name;
  }

  @Operation
  public boolean tryLock(@Param(name = "thread") int thread, @Param(name = "name") int name)
      throws InterruptedException {
    LockHandle handle = locks.tryLock(NAMES[name], Duration.ZERO, LEASE).orElse(null);
    if (handle != null) {
      handles.put(slot(thread, name), handle);
    }
    return handle != null;
  }

  @Operation
  public boolean renew(@Param(name = "thread") int thread, @Param(name = "name") int name) {
    LockHandle handle = handles.get(slot(thread, name));
    return handle != null && handle.renew(LEASE);
  }

  @Operation
  public boolean isHeld(@Param(name = "thread") int thread, @Param(name = "name") int name) {
    LockHandle handle = handles.get(slot(thread, name));
    return handle != null && handle.isHeld();
  }

  @Operation
  public void close(@Param(name = "thread") int thread, @Param(name = "name") int name) {
    LockHandle handle = handles.remove(slot(thread, name));
    if (handle != null) {
      handle.close();
    }
  }

  @Test
  void everyInterleavingAnswersAsTheModelInSomeOrder() {
    ModelChecks.check(getClass(), LockModel.class);
  }
}
