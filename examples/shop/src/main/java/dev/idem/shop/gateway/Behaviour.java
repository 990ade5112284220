package dev.idem.shop.gateway;

/**
 * How the fake gateway treats one charge.
 *
 * @param decline refuse the charge
 * @param timeout charge (or refuse), then lose the answer: the caller gets a timeout
 * @param callback when the asynchronous callback goes out
 * @param repeats how many times the callback is sent
 */
public record Behaviour(boolean decline, boolean timeout, Callback callback, int repeats) {

  /** When the callback is sent, relative to the synchronous answer. */
  public enum Callback {
    NONE,
    BEFORE_ANSWER,
    AFTER_ANSWER
  }

  /** Approve, answer at once, send the callback once afterwards. */
  public static Behaviour approve() {
    return new Behaviour(false, false, Callback.AFTER_ANSWER, 1);
  }

  public Behaviour declined() {
    return new Behaviour(true, timeout, callback, repeats);
  }

  public Behaviour timingOut() {
    return new Behaviour(decline, true, callback, repeats);
  }

  public Behaviour callback(Callback when, int times) {
    return new Behaviour(decline, timeout, when, times);
  }
}
