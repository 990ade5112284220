package dev.idem.bench.article;

import io.lettuce.core.api.sync.RedisCommands;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * The article's token flow as its diagram draws it (section 2, "实现流程"): the server checks the
 * token, runs the operation, then deletes the token. Tokens are issued as {@link
 * ArticleTokenService#generateToken} issues them.
 *
 * <ul>
 *   <li>check: {@code EXISTS idempotent:token:<t>}; absent means a repeat, refused;
 *   <li>run the operation;
 *   <li>delete: {@code DEL idempotent:token:<t>}. When the operation throws, the token is left in
 *       place, so the client can retry.
 * </ul>
 *
 * <p><b>Flaw.</b> Check and delete are two Redis calls with the whole operation between them: every
 * request with the same token that checks before the first one deletes goes through too, so a
 * double click or a client retry during a slow operation runs it twice. It is the common first
 * repair of the article's {@code SETNX} code (see {@link ArticleTokenService}), and still wrong;
 * {@link FixedTokenService} consumes the token in one atomic step instead.
 */
public final class CheckThenDeleteTokenService implements TokenGuard {

  private final RedisCommands<String, String> redis;
  private final String prefix;

  public CheckThenDeleteTokenService(RedisCommands<String, String> redis, String prefix) {
    this.redis = redis;
    this.prefix = prefix;
  }

  @Override
  public String issue() {
    String token = UUID.randomUUID().toString().replace("-", "");
    redis.setex(prefix + token, ArticleTokenService.TOKEN_EXPIRE_SECONDS, "PENDING");
    return token;
  }

  @Override
  public Optional<String> submit(String token, Supplier<String> action) {
    if (token == null || redis.exists(prefix + token) == 0) {
      return Optional.empty();
    }
    String result = action.get();
    redis.del(prefix + token);
    return Optional.of(result);
  }
}
