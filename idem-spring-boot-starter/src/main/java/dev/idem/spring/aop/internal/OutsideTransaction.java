package dev.idem.spring.aop.internal;

import dev.idem.core.Work;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;

/**
 * Marks the store calls of an {@code @Idempotent} method that declares no transaction but runs
 * inside its caller's: they must not join that transaction (the method's effect does not roll back
 * with it), so {@link dev.idem.spring.SpringTransactionConnection} answers "none" to them while the
 * method's own work still runs in the caller's transaction. The mark is the thread's, like Spring's
 * own transaction synchronization: it is set around one engine call and lifted while its work runs,
 * so that the work, and any guarded call inside it, see the caller's transaction as usual.
 */
public final class OutsideTransaction {

  private static final ThreadLocal<Boolean> STORE_OUTSIDE = new ThreadLocal<>();

  private OutsideTransaction() {}

  /** True while this thread makes the store calls of a call settled outside its transaction. */
  public static boolean active() {
    return Boolean.TRUE.equals(STORE_OUTSIDE.get());
  }

  /** Runs {@code call} with this thread's store calls outside its transaction. */
  public static <T extends @Nullable Object> T call(Callable<T> call) throws Exception {
    return with(Boolean.TRUE, call);
  }

  /**
   * {@code work}, run with the mark lifted: the work itself belongs to the caller's transaction.
   */
  public static <T extends @Nullable Object, E extends Exception> Work<T, E> inside(
      Work<T, E> work) {
    return ctx -> {
      Boolean before = STORE_OUTSIDE.get();
      STORE_OUTSIDE.remove();
      try {
        return work.run(ctx);
      } finally {
        restore(before);
      }
    };
  }

  private static <T extends @Nullable Object> T with(Boolean mark, Callable<T> call)
      throws Exception {
    Boolean before = STORE_OUTSIDE.get();
    STORE_OUTSIDE.set(mark);
    try {
      return call.call();
    } finally {
      restore(before);
    }
  }

  private static void restore(Boolean before) {
    if (before == null) {
      STORE_OUTSIDE.remove();
    } else {
      STORE_OUTSIDE.set(before);
    }
  }
}
