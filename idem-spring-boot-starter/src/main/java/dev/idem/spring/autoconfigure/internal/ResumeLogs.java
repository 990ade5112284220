package dev.idem.spring.autoconfigure.internal;

import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.core.resume.InMemoryResumeLog;
import dev.idem.core.resume.ResumeLog;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.spring.IdemJdbcProperties;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * The resume log of the completer, on the storage of the store the starter built: the store's own
 * Redis connection, a table beside the records on the same DataSource, or memory. The JDBC and
 * Redis classes are touched only when their modules are on the classpath.
 */
public final class ResumeLogs {

  private static final String REDIS_STORE = "dev.idem.redis.RedisIdempotencyStore";
  private static final String JDBC_STORE = "dev.idem.jdbc.JdbcIdempotencyStore";

  private ResumeLogs() {}

  /** The log beside {@code store}, or null for a store of the application's own. */
  public static @Nullable ResumeLog of(
      IdempotencyStore store, ListableBeanFactory beans, IdemJdbcProperties jdbc) {
    if (store instanceof InMemoryIdempotencyStore) {
      return new InMemoryResumeLog();
    }
    ClassLoader loader = ResumeLogs.class.getClassLoader();
    if (ClassUtils.isPresent(REDIS_STORE, loader) && RedisStores.isRedis(store)) {
      return RedisStores.resumeLog(store);
    }
    if (ClassUtils.isPresent(JDBC_STORE, loader) && store.getClass().getName().equals(JDBC_STORE)) {
      return JdbcStores.resumeLog(beans, jdbc);
    }
    return null;
  }
}
