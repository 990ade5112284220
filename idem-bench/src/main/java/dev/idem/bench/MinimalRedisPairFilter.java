package dev.idem.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.ContentCachingResponseWrapper;

/**
 * The least that an idempotency filter on Redis does for a first call, written by hand for the
 * benchmark's floor: {@code SET key owner NX PX 30000} before the handler, the response body
 * captured, then a script that stores the body if the key still holds that owner ({@code GET},
 * {@code SET PX}). A key already taken is answered 409. No header rules, fingerprint, replay,
 * status or header capture, meters or policies: what is left is the cost of the two Redis round
 * trips and the capture, which any Redis-backed filter that claims before the work and stores after
 * it pays.
 */
final class MinimalRedisPairFilter extends OncePerRequestFilter implements AutoCloseable {

  private static final SetArgs CLAIM = SetArgs.Builder.nx().px(30_000);
  private static final byte[] RETENTION = bytes("3600000");

  private final String prefix;
  private final StatefulRedisConnection<byte[], byte[]> connection;
  private final RedisCommands<byte[], byte[]> redis;
  private final String sha;

  MinimalRedisPairFilter(RedisClient client, String prefix) {
    this.prefix = prefix;
    this.connection = client.connect(ByteArrayCodec.INSTANCE);
    this.redis = connection.sync();
    this.sha = redis.scriptLoad(bytes(RedisStoreScenarios.REPLACE_IF_OWNED));
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    String key = request.getHeader("Idempotency-Key");
    if (key == null || !"POST".equals(request.getMethod())) {
      chain.doFilter(request, response);
      return;
    }
    byte[] redisKey = bytes(prefix + key);
    ThreadLocalRandom random = ThreadLocalRandom.current();
    byte[] owner = bytes(new UUID(random.nextLong(), random.nextLong()).toString());
    if (!"OK".equals(redis.set(redisKey, owner, CLAIM))) {
      response.sendError(HttpServletResponse.SC_CONFLICT);
      return;
    }
    ContentCachingResponseWrapper captured = new ContentCachingResponseWrapper(response);
    chain.doFilter(request, captured);
    Long stored =
        redis.evalsha(
            sha,
            ScriptOutputType.INTEGER,
            new byte[][] {redisKey},
            owner,
            captured.getContentAsByteArray(),
            RETENTION);
    if (stored == null || stored != 1) {
      throw new IllegalStateException("own claim not completed: " + key);
    }
    captured.copyBodyToResponse();
  }

  @Override
  public void close() {
    connection.close();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
