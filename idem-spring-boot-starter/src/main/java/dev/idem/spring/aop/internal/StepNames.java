package dev.idem.spring.aop.internal;

import dev.idem.core.ExecutionContext;
import dev.idem.core.IdempotencyKey;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Names the steps that keyless {@code @Idempotent} methods make of the run that calls them: the
 * operation for its first call in a run, {@code operation#2} for the second, and so on. A rerun of
 * deterministic work calls them in the same order, so each call finds its own step again.
 */
public final class StepNames {

  private static final int LONGEST = IdempotencyKey.MAX_STEP_NAME_LENGTH - 8;

  // by run: each run of guarded work has a context of its own, dropped when the run is
  private final Map<ExecutionContext, Map<String, Integer>> calls =
      Collections.synchronizedMap(new WeakHashMap<>());

  /** The name of the next call of {@code operation} in {@code run}. */
  public String next(ExecutionContext run, String operation) {
    String name = stepName(operation);
    int n;
    synchronized (calls) {
      n = calls.computeIfAbsent(run, r -> new HashMap<>()).merge(name, 1, Integer::sum);
    }
    return n == 1 ? name : name + "#" + n;
  }

  // an operation may hold what a step name may not: '/', spaces, other text
  private static String stepName(String operation) {
    StringBuilder name = new StringBuilder();
    for (int i = 0; i < operation.length() && name.length() < LONGEST; i++) {
      char c = operation.charAt(i);
      name.append(c >= '!' && c <= '~' && c != '/' ? c : '_');
    }
    return name.isEmpty() ? "_" : name.toString();
  }
}
