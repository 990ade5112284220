package dev.idem.core.hot;

/**
 * The store failed to apply the batch this deduction was in; the cause is the store's exception.
 * The store is transactional, so nothing of that batch was applied: a retry with the same request
 * id is safe.
 */
public class DeductionFailedException extends HotAccountException {

  public DeductionFailedException(String requestId, Throwable cause) {
    super("deduction " + requestId + " failed, nothing of its batch was applied: " + cause, cause);
  }
}
