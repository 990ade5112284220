package dev.idem.redis.internal;

import io.lettuce.core.RedisException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The startup check of {@code maxmemory-policy}. Under any policy but {@code noeviction} a full
 * Redis deletes records to make room, and a deleted record lets a duplicate run again.
 */
public final class EvictionCheck {

  private static final Logger log = LoggerFactory.getLogger(EvictionCheck.class);

  private EvictionCheck() {}

  /**
   * Logs a warning for every primary whose policy is not {@code noeviction}, and returns whether
   * all were.
   */
  public static boolean warnUnlessNoEviction(RedisBackend backend, String user) {
    List<String> policies;
    try {
      policies = backend.evictionPolicies();
    } catch (RedisException e) {
      // Managed services often refuse CONFIG; the check is advice, not a precondition.
      log.warn(
          "{}: could not read maxmemory-policy ({}); make sure it is noeviction, or evicted"
              + " records will let duplicates through",
          user,
          e.getMessage());
      return false;
    }
    boolean safe = true;
    for (String policy : policies) {
      if (!"noeviction".equals(policy)) {
        safe = false;
        log.warn(
            "{}: Redis maxmemory-policy is '{}', not 'noeviction': when memory runs out Redis"
                + " will delete idempotency records and let duplicates run again",
            user,
            policy);
      }
    }
    return safe;
  }
}
