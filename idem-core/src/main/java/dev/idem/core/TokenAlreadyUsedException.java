package dev.idem.core;

/**
 * A token was used before and the {@link TokenService} is set to refuse repeats instead of
 * replaying the first result (the article's "请勿重复提交"). Maps to HTTP 409.
 */
public class TokenAlreadyUsedException extends IdempotencyException {

  public TokenAlreadyUsedException(String message) {
    super(message, false);
  }
}
