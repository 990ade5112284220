package dev.idem.chaos;

import dev.idem.testsupport.net.FaultProxy;
import java.time.Duration;

/**
 * The TCP fault proxies ({@link FaultProxy} of idem-test-support) between the shops and the
 * database, and between the shops and Redis, for scenarios with proxy faults. The shops' JDBC URL
 * and Redis URL point at them.
 */
final class Proxies implements AutoCloseable {

  private final FaultProxy database;
  private final FaultProxy redis;

  private Proxies(FaultProxy database, FaultProxy redis) {
    this.database = database;
    this.redis = redis;
  }

  static Proxies start(String dbHost, int dbPort, String redisHost, int redisPort) {
    FaultProxy database = FaultProxy.start(dbHost, dbPort);
    try {
      return new Proxies(database, FaultProxy.start(redisHost, redisPort));
    } catch (RuntimeException e) {
      database.close();
      throw e;
    }
  }

  int databasePort() {
    return database.port();
  }

  int redisPort() {
    return redis.port();
  }

  void apply(Scenario.Fault fault) {
    switch (fault.action()) {
      case DB_LATENCY -> database.latency(fault.latency());
      case DB_CUT -> database.cut();
      case REDIS_LATENCY -> redis.latency(fault.latency());
      case REDIS_CUT -> redis.cut();
      case HEAL -> {
        database.reset();
        redis.reset();
        database.latency(Duration.ZERO);
        redis.latency(Duration.ZERO);
      }
      default -> throw new IllegalArgumentException("not a proxy fault: " + fault.label());
    }
  }

  @Override
  public void close() {
    database.close();
    redis.close();
  }
}
