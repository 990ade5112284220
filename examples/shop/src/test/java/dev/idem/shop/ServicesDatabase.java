package dev.idem.shop;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeoutException;

/**
 * Gives the services ITs a fresh PostgreSQL database {@code shop_it} and no Redis keys under {@code
 * shop-it:}, once per JVM, before the first Spring context starts. Only ever touches those names:
 * the servers are shared.
 */
public final class ServicesDatabase {

  static final String REDIS_PREFIX = "shop-it:";
  static final String MARIADB_REDIS_PREFIX = "shop-it-mariadb:";
  private static boolean done;
  private static boolean mariaDbDone;

  private ServicesDatabase() {}

  static synchronized void recreateOnce() {
    if (done) {
      return;
    }
    recreatePostgres("shop_it");
    deleteRedisKeys(REDIS_PREFIX);
    deleteQueues("shop-it.loyalty.v2");
    done = true;
  }

  /** Drops the PostgreSQL database {@code name} (its sessions too) and creates it empty. */
  public static void recreatePostgres(String name) {
    dropPostgres(name);
    postgres("CREATE DATABASE " + name);
  }

  /** Drops the PostgreSQL database {@code name}, its sessions too, if it exists. */
  public static void dropPostgres(String name) {
    postgres("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
  }

  private static void postgres(String sql) {
    try (Connection c =
            DriverManager.getConnection(
                "jdbc:postgresql://127.0.0.1:5432/postgres", "postgres", "");
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "PostgreSQL at 127.0.0.1:5432 is needed (scripts/services): " + sql, e);
    }
  }

  static synchronized void recreateMariaDbOnce() {
    if (mariaDbDone) {
      return;
    }
    try (Connection c = DriverManager.getConnection("jdbc:mariadb://127.0.0.1:3306/", "root", "");
        Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS shop_it");
      s.execute("CREATE DATABASE shop_it");
    } catch (SQLException e) {
      throw new IllegalStateException("MariaDB at 127.0.0.1:3306 is needed (scripts/services)", e);
    }
    deleteRedisKeys(MARIADB_REDIS_PREFIX);
    deleteQueues("shop-it-mariadb.loyalty.v2");
    mariaDbDone = true;
  }

  /**
   * Deletes the ITs' loyalty queue and its dead-letter queue, so that they are declared afresh with
   * the current arguments (RabbitMQ refuses to redeclare a queue with other ones). The names end in
   * {@code .v2} since the queue got its dead-letter arguments, so that runs of older versions on
   * the shared broker keep their own queues.
   */
  private static void deleteQueues(String queue) {
    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost("127.0.0.1");
    factory.setPort(5672);
    try (com.rabbitmq.client.Connection c = factory.newConnection();
        Channel channel = c.createChannel()) {
      channel.queueDelete(queue);
      channel.queueDelete(queue + ".dlq");
    } catch (IOException | TimeoutException e) {
      throw new IllegalStateException("RabbitMQ at 127.0.0.1:5672 is needed (scripts/services)", e);
    }
  }

  private static void deleteRedisKeys(String prefix) {
    RedisClient client = RedisClient.create("redis://127.0.0.1:6379");
    try {
      deleteRedisKeys(client, prefix);
    } finally {
      client.shutdown();
    }
  }

  /** Deletes every key under {@code prefix}, and nothing else. */
  private static void deleteRedisKeys(RedisClient client, String prefix) {
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      RedisCommands<String, String> redis = connection.sync();
      ScanCursor cursor = ScanCursor.INITIAL;
      do {
        var page = redis.scan(cursor, ScanArgs.Builder.matches(prefix + "*").limit(500));
        if (!page.getKeys().isEmpty()) {
          redis.del(page.getKeys().toArray(String[]::new));
        }
        cursor = page;
      } while (!cursor.isFinished());
    }
  }
}
