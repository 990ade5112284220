package dev.idem.chaos;

import dev.idem.testsupport.net.FaultProxy;
import java.util.ArrayList;
import java.util.List;

/**
 * The TCP fault proxies ({@link FaultProxy} of idem-test-support) between each shop and the
 * database, and between each shop and Redis, for scenarios with proxy faults: one pair per shop, so
 * that one shop can be cut off alone. Each shop's JDBC URL and Redis URL point at its pair.
 */
final class Proxies implements AutoCloseable {

  /** One shop's way to its stores. */
  private record Pair(FaultProxy database, FaultProxy redis) {

    void reset() {
      database.reset();
      redis.reset();
    }

    void close() {
      database.close();
      redis.close();
    }
  }

  private final List<Pair> pairs;

  private Proxies(List<Pair> pairs) {
    this.pairs = List.copyOf(pairs);
  }

  /** A pair of proxies for each of {@code shops} shops. */
  static Proxies start(int shops, String dbHost, int dbPort, String redisHost, int redisPort) {
    List<Pair> pairs = new ArrayList<>();
    try {
      for (int i = 0; i < shops; i++) {
        FaultProxy database = FaultProxy.start(dbHost, dbPort);
        try {
          pairs.add(new Pair(database, FaultProxy.start(redisHost, redisPort)));
        } catch (RuntimeException e) {
          database.close();
          throw e;
        }
      }
      return new Proxies(pairs);
    } catch (RuntimeException e) {
      pairs.forEach(Pair::close);
      throw e;
    }
  }

  /** The database proxy's port for shop {@code instance} (1-based). */
  int databasePort(int instance) {
    return pairs.get(instance - 1).database().port();
  }

  /** The Redis proxy's port for shop {@code instance} (1-based). */
  int redisPort(int instance) {
    return pairs.get(instance - 1).redis().port();
  }

  void apply(Scenario.Fault fault) {
    for (Pair pair : pairs) {
      switch (fault.action()) {
        case DB_LATENCY -> pair.database().latency(fault.latency());
        case DB_CUT -> pair.database().cut();
        case REDIS_LATENCY -> pair.redis().latency(fault.latency());
        case REDIS_CUT -> pair.redis().cut();
        case PARTITION -> {
          // Held, not dropped: a partition that TCP rides out, whose bytes arrive when it heals.
          if (pair == pairs.get(fault.instance() - 1)) {
            pair.database().hold(true);
            pair.redis().hold(true);
          }
        }
        case HEAL -> pair.reset();
        default -> throw new IllegalArgumentException("not a proxy fault: " + fault.label());
      }
    }
  }

  @Override
  public void close() {
    pairs.forEach(Pair::close);
  }
}
