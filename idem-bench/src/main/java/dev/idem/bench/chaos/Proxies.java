package dev.idem.bench.chaos;

/**
 * TCP fault proxies between the shops and the database and Redis. Not available until the fault
 * proxy of idem-test-support lands; scenarios with proxy faults are refused meanwhile.
 */
final class Proxies implements AutoCloseable {

  private Proxies() {}

  static Proxies start(String dbHost, int dbPort, String redisHost, int redisPort) {
    throw new ScenarioException("proxy faults need the fault proxy of idem-test-support");
  }

  int databasePort() {
    throw new IllegalStateException("no proxy");
  }

  int redisPort() {
    throw new IllegalStateException("no proxy");
  }

  void apply(Scenario.Fault fault) {
    throw new IllegalStateException("no proxy for " + fault.label());
  }

  @Override
  public void close() {}
}
