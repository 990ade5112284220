package dev.idem.core;

/**
 * Who decides the fate of the outcome of work that ran: the engine, which stores it as the work
 * ends ({@link #NONE}), or the caller, who is handed it as a {@link PendingOutcome} to complete or
 * release later, for example when the transaction around the call commits or rolls back.
 *
 * <p>A caller holds outcomes when the work's effects become durable only after the engine's call
 * returns while the store does not share their fate. Every outcome is held, a return value or any
 * failure (the transaction, not the exception, decides); a replay or a refusal holds nothing.
 */
@FunctionalInterface
public interface Deferral {

  /** No deferral: the engine stores each outcome (or frees the key) as the work ends. */
  Deferral NONE =
      new Deferral() {
        @Override
        public void hold(PendingOutcome outcome) {
          throw new IllegalStateException("Deferral.NONE holds nothing; the engine stores it");
        }

        @Override
        public String toString() {
          return "Deferral.NONE";
        }
      };

  /**
   * Takes the outcome of work that ran, on the thread that ran it, before the engine's call returns
   * or throws the work's failure. The receiver must settle it exactly once. Should this throw, the
   * key is freed and what it threw reaches the caller.
   */
  void hold(PendingOutcome outcome);

  /**
   * True when {@link #hold} may be called on any thread, after the call it was given to returned,
   * as work that ends later calls it ({@link IdempotentCall#runAsync}, which refuses a deferral
   * that answers false before claiming). False by default: a deferral that binds the outcome to the
   * calling thread, such as its transaction, would not see that transaction there.
   */
  default boolean holdsFromAnyThread() {
    return false;
  }

  /** True unless this is {@link #NONE}. */
  default boolean holds() {
    return this != NONE;
  }
}
