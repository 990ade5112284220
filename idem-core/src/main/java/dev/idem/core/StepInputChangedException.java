package dev.idem.core;

/**
 * A rerun of work reached one of its steps with other input than the run that stored the step's
 * result: the work is not deterministic, so the stored result may not answer what this run asks.
 * Not a client's fault but the application's; nothing of the step runs again, and the enclosing key
 * is released as after any unclassified failure.
 */
public class StepInputChangedException extends IdempotencyException {

  private final transient IdempotencyKey key;

  public StepInputChangedException(IdempotencyKey key) {
    super(
        "step '"
            + key.stepPath()
            + "' of "
            + key.root()
            + " ran before with other input: the work must reach each step with the same input"
            + " on every run");
    this.key = key;
  }

  /** The step's key. */
  public IdempotencyKey key() {
    return key;
  }
}
