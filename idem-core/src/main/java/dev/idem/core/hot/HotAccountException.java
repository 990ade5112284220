package dev.idem.core.hot;

import dev.idem.core.IdempotencyException;

/** Root of the failures of a {@link HotAccountExecutor}. */
public class HotAccountException extends IdempotencyException {

  public HotAccountException(String message, Throwable cause) {
    super(message, cause);
  }

  protected HotAccountException(String message, boolean withStackTrace) {
    super(message, withStackTrace);
  }
}
