package dev.idem.testsupport;

import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;

/** The one Lincheck set-up of the model checks: two threads of three calls, about 12 s a run. */
public final class ModelChecks {

  private ModelChecks() {}

  /** Model-checks the operations of {@code test} against the sequential {@code model}. */
  public static void check(Class<?> test, Class<?> model) {
    new ModelCheckingOptions()
        .iterations(10)
        .invocationsPerIteration(200)
        .threads(2)
        .actorsPerThread(3)
        .sequentialSpecification(model)
        .check(test);
  }
}
