package dev.idem.bench.article;

import io.lettuce.core.api.sync.RedisCommands;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * The article's token service with its flaw repaired, and nothing else changed: tokens are issued
 * as {@link ArticleTokenService#generateToken} issues them, and a request consumes its token with
 * one {@code DEL}, which answers 1 to exactly one caller however many race for the same token. Only
 * that caller runs the operation; when the operation throws, the token is written back (the
 * article's {@code releaseToken}, which deleted it, now restores it), so the client can retry.
 *
 * <p>What it still lacks, and Idem's {@code TokenService} has: a repeat is refused rather than
 * answered with the first result; a token consumed by a process that then dies is lost; and the
 * operation's own writes are not tied to the token, so a crash between them leaves the two
 * disagreeing.
 */
public final class FixedTokenService implements TokenGuard {

  private final RedisCommands<String, String> redis;
  private final String prefix;

  public FixedTokenService(RedisCommands<String, String> redis, String prefix) {
    this.redis = redis;
    this.prefix = prefix;
  }

  @Override
  public String issue() {
    String token = UUID.randomUUID().toString().replace("-", "");
    redis.setex(prefix + token, ArticleTokenService.TOKEN_EXPIRE_SECONDS, "PENDING");
    return token;
  }

  /** True for the one caller whose {@code DEL} removed the issued token. */
  public boolean consume(String token) {
    return token != null && redis.del(prefix + token) == 1;
  }

  /** Puts a consumed token back, after the operation failed. */
  public void release(String token) {
    redis.setex(prefix + token, ArticleTokenService.TOKEN_EXPIRE_SECONDS, "PENDING");
  }

  @Override
  public Optional<String> submit(String token, Supplier<String> action) {
    if (!consume(token)) {
      return Optional.empty();
    }
    try {
      return Optional.of(action.get());
    } catch (RuntimeException e) {
      release(token);
      throw e;
    }
  }
}
