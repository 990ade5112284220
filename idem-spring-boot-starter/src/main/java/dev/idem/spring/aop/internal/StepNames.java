package dev.idem.spring.aop.internal;

import dev.idem.core.ExecutionContext;
import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.WeakHashMap;
import org.jspecify.annotations.Nullable;

/**
 * Names the steps that keyless {@code @Idempotent} methods make of the run that calls them: the
 * operation for its first call in a run, {@code operation#2} for the second, and so on. A rerun of
 * deterministic work calls them in the same order, so each call finds its own step again. A call
 * whose operation's last call in the run failed with the same input (the same fingerprint: any,
 * when arguments are not compared) is taken for its retry (a {@code @Retryable} around the method)
 * and gets its name, so its step and its downstream key; with other input (a fallback to another
 * card) it is the next call. Operations are counted by their step name (cut to fit one).
 */
public final class StepNames {

  private static final int LONGEST = IdempotencyKey.MAX_STEP_NAME_LENGTH - 8;

  /**
   * The names handed out for one operation in one run, and the input of a last call that failed.
   */
  private static final class Calls {
    int named;
    @Nullable String failedInput;
  }

  // by run: each run of guarded work has a context of its own, dropped when the run is
  private final Map<ExecutionContext, Map<String, Calls>> runs =
      Collections.synchronizedMap(new WeakHashMap<>());

  /** The name of the next call of {@code operation} with {@code input} in {@code run}. */
  public String next(ExecutionContext run, String operation, Fingerprint input) {
    String name = baseOf(operation);
    int n;
    synchronized (runs) {
      Calls calls =
          runs.computeIfAbsent(run, r -> new HashMap<>()).computeIfAbsent(name, k -> new Calls());
      if (calls.failedInput == null || !calls.failedInput.equals(input.value())) {
        calls.named++;
      }
      calls.failedInput = null;
      n = calls.named;
    }
    return n == 1 ? name : name + "#" + n;
  }

  /**
   * Tells how the call of {@code operation} named last ended: returned (or its record is held), or
   * failed with its record free for a retry.
   */
  public void ended(ExecutionContext run, String operation, Fingerprint input, boolean returned) {
    if (returned) {
      return;
    }
    synchronized (runs) {
      Calls calls = runs.computeIfAbsent(run, r -> new HashMap<>()).get(baseOf(operation));
      if (calls != null) {
        calls.failedInput = input.value();
      }
    }
  }

  /**
   * The name of the first step a call of {@code operation} makes in a run; later calls add {@code
   * #2}, {@code #3}, ... An operation may hold what a step name may not ('/', spaces, other text):
   * those become '_', and the name is cut to fit.
   */
  public static String baseOf(String operation) {
    StringBuilder name = new StringBuilder();
    for (int i = 0; i < operation.length() && name.length() < LONGEST; i++) {
      char c = operation.charAt(i);
      name.append(c >= '!' && c <= '~' && c != '/' ? c : '_');
    }
    return name.isEmpty() ? "_" : name.toString();
  }
}
