package dev.idem.spring.aop.internal;

import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;

/**
 * Marks the call of a resumable method that a completer makes through its bean: the advice then
 * runs the method inside the completer's claim instead of claiming the key again. The mark is for
 * one call on this thread and is taken by it, so a nested call of the same method claims its key as
 * any call does.
 */
public final class ResumedCalls {

  private static final ThreadLocal<@Nullable Method> RESUMING = new ThreadLocal<>();

  private ResumedCalls() {}

  /** Marks the next call of {@code method} on this thread as a completer's, until it is taken. */
  public static void mark(Method method) {
    RESUMING.set(method);
  }

  /** Takes the mark when it is for {@code method}; true when it was. */
  public static boolean take(Method method) {
    Method marked = RESUMING.get();
    if (marked == null || !marked.equals(method)) {
      return false;
    }
    RESUMING.remove();
    return true;
  }

  /** Drops a mark that no call took (the bean threw before its advice ran). */
  public static void clear() {
    RESUMING.remove();
  }
}
