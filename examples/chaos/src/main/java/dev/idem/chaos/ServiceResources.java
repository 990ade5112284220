package dev.idem.chaos;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeoutException;

/**
 * The chaos run's own objects on the shared servers: the PostgreSQL database {@value #DATABASE}
 * (dropped and created before each scenario, dropped after), and the RabbitMQ exchange {@value
 * #EXCHANGE} and queue {@value #QUEUE} with its dead letters (deleted before and after, so that no
 * message of an earlier run reaches a fresh database).
 */
final class ServiceResources {

  static final String DATABASE = "shop_chaos";
  static final String EXCHANGE = "chaos.events";
  static final String QUEUE = "chaos.loyalty";

  private final Settings settings;

  ServiceResources(Settings settings) {
    this.settings = settings;
  }

  /** Fresh database, no leftover broker objects. */
  void prepare() throws SQLException, IOException {
    dropDatabase();
    try (var c = admin();
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + DATABASE);
    }
    deleteBrokerObjects();
  }

  /** Drops the database and deletes the broker objects. */
  void cleanUp() throws SQLException, IOException {
    dropDatabase();
    deleteBrokerObjects();
  }

  String jdbcUrl(String host, int port) {
    return "jdbc:postgresql://" + host + ":" + port + "/" + DATABASE;
  }

  private void dropDatabase() throws SQLException {
    try (var c = admin();
        Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS " + DATABASE + " WITH (FORCE)");
    }
  }

  private java.sql.Connection admin() throws SQLException {
    return DriverManager.getConnection(
        "jdbc:postgresql://"
            + settings.postgresHost()
            + ":"
            + settings.postgresPort()
            + "/postgres",
        settings.postgresUser(),
        "");
  }

  private void deleteBrokerObjects() throws IOException {
    ConnectionFactory factory = new ConnectionFactory();
    factory.setHost(settings.rabbitHost());
    factory.setPort(settings.rabbitPort());
    factory.setUsername("guest");
    factory.setPassword("guest");
    try (Connection connection = factory.newConnection("idem-chaos");
        Channel channel = connection.createChannel()) {
      channel.queueDelete(QUEUE);
      channel.queueDelete(QUEUE + ".dlq");
      channel.exchangeDelete(EXCHANGE);
      channel.exchangeDelete(QUEUE + ".dlx");
    } catch (TimeoutException e) {
      throw new IOException("RabbitMQ at " + settings.rabbitHost() + " did not answer", e);
    }
  }
}
