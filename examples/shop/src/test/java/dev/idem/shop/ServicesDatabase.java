package dev.idem.shop;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Gives the services ITs a fresh PostgreSQL database {@code shop_it} and no Redis keys under {@code
 * shop-it:}, once per JVM, before the first Spring context starts. Only ever touches those names:
 * the servers are shared.
 */
final class ServicesDatabase {

  static final String REDIS_PREFIX = "shop-it:";
  private static boolean done;

  private ServicesDatabase() {}

  static synchronized void recreateOnce() {
    if (done) {
      return;
    }
    try (Connection c =
            DriverManager.getConnection(
                "jdbc:postgresql://127.0.0.1:5432/postgres", "postgres", "");
        Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS shop_it WITH (FORCE)");
      s.execute("CREATE DATABASE shop_it");
    } catch (SQLException e) {
      throw new IllegalStateException(
          "PostgreSQL at 127.0.0.1:5432 is needed (scripts/services)", e);
    }
    deleteRedisKeys(RedisClient.create("redis://127.0.0.1:6379"));
    done = true;
  }

  /** Deletes every key under {@link #REDIS_PREFIX}, and nothing else. */
  static void deleteRedisKeys(RedisClient client) {
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      RedisCommands<String, String> redis = connection.sync();
      ScanCursor cursor = ScanCursor.INITIAL;
      do {
        var page = redis.scan(cursor, ScanArgs.Builder.matches(REDIS_PREFIX + "*").limit(500));
        if (!page.getKeys().isEmpty()) {
          redis.del(page.getKeys().toArray(String[]::new));
        }
        cursor = page;
      } while (!cursor.isFinished());
    }
  }
}
