package dev.idem.bench.article;

import io.lettuce.core.SetArgs;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * The article's {@code IdempotentTokenService} (section 2, "Token 服务实现") with the token check of
 * its {@code OrderController.createOrder}, as written.
 *
 * <ul>
 *   <li>{@code generateToken}: a dash-less UUID, {@code SET idempotent:token:<t> PENDING EX 3600}.
 *   <li>{@code validateAndConsumeToken}: {@code SET idempotent:token:<t> USED NX EX 3600}; true
 *       when the {@code SETNX} succeeded.
 *   <li>{@code releaseToken}: {@code DEL idempotent:token:<t>}, when the action failed.
 * </ul>
 *
 * <p><b>Flaw.</b> {@code generateToken} has already written the key that {@code
 * validateAndConsumeToken} then {@code SETNX}es, so every token the server issued is refused as a
 * repeat, and a token the server never issued (forged, mistyped, expired) is accepted once. The
 * atomicity the article's comment claims is real, but it guards the wrong key state. See {@link
 * FixedTokenService} for the fix.
 */
public final class ArticleTokenService implements TokenGuard {

  /** The article's {@code TOKEN_EXPIRE_SECONDS}: one hour. */
  public static final long TOKEN_EXPIRE_SECONDS = 3600;

  private final RedisCommands<String, String> redis;
  private final String prefix;

  /**
   * @param prefix the article's {@code "idempotent:token:"}, under a key prefix of the caller's
   */
  public ArticleTokenService(RedisCommands<String, String> redis, String prefix) {
    this.redis = redis;
    this.prefix = prefix;
  }

  /** The article's {@code generateToken}. */
  public String generateToken() {
    String token = UUID.randomUUID().toString().replace("-", "");
    redis.setex(prefix + token, TOKEN_EXPIRE_SECONDS, "PENDING");
    return token;
  }

  /** The article's {@code validateAndConsumeToken}: true means "first use". */
  public boolean validateAndConsumeToken(String token) {
    if (token == null) {
      return false;
    }
    String reply = redis.set(prefix + token, "USED", SetArgs.Builder.nx().ex(TOKEN_EXPIRE_SECONDS));
    return "OK".equals(reply);
  }

  /** The article's {@code releaseToken}. */
  public void releaseToken(String token) {
    if (token != null) {
      redis.del(prefix + token);
    }
  }

  @Override
  public String issue() {
    return generateToken();
  }

  /** The controller's flow: validate, run, release the token when the action throws. */
  @Override
  public Optional<String> submit(String token, Supplier<String> action) {
    if (!validateAndConsumeToken(token)) {
      return Optional.empty();
    }
    try {
      return Optional.of(action.get());
    } catch (RuntimeException e) {
      releaseToken(token);
      throw e;
    }
  }
}
