package dev.idem.core.lock;

import java.util.HashMap;
import java.util.Map;

/**
 * The sequential specification of a lock provider, for {@link InMemoryLockLincheckTest}: each name
 * is free or held by one handle, one call at a time. Leases do not end; the clock stands still.
 */
public class LockModel {

  private final Map<Integer, Integer> holders = new HashMap<>();
  private final Map<Integer, Integer> handles = new HashMap<>();
  private int lastHandle;

  public boolean tryLock(int thread, int name) {
    if (holders.containsKey(name)) {
      return false;
    }
    holders.put(name, ++lastHandle);
    handles.put(InMemoryLockLincheckTest.slot(thread, name), lastHandle);
    return true;
  }

  public boolean renew(int thread, int name) {
    return isHeld(thread, name);
  }

  public boolean isHeld(int thread, int name) {
    Integer handle = handles.get(InMemoryLockLincheckTest.slot(thread, name));
    return handle != null && handle.equals(holders.get(name));
  }

  public void close(int thread, int name) {
    Integer handle = handles.remove(InMemoryLockLincheckTest.slot(thread, name));
    if (handle != null) {
      holders.remove(name, handle);
    }
  }
}
