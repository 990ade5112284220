package dev.idem.chaos;

import dev.idem.chaos.Scenario.Backend;
import dev.idem.testsupport.servers.PrivatePostgres;
import dev.idem.testsupport.servers.PrivateRedis;
import dev.idem.testsupport.servers.PrivateRedisSentinel;
import dev.idem.testsupport.servers.ShopProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The shops of one scenario and what they run on. For {@link Backend#SERVICES}: a fresh database
 * {@code shop_chaos}, a private Redis, the tool's RabbitMQ names, and {@code n} instances of
 * profile {@code services} on them; for {@link Backend#EMBEDDED}: one instance on H2. Every
 * instance gets the tool's users, a generous stock and wallet, a gateway secret of this run, and
 * the scenario's extra properties. {@link #close} kills the instances and removes what the fleet
 * created.
 */
final class ShopFleet implements AutoCloseable {

  static final String ADMIN_PASSWORD = "admin";

  /** Starting wallet of every virtual user: enough that no payment fails for want of money. */
  private static final String BALANCE = "1000000.00";

  /** Starting stock of every product: enough that no order fails for want of stock. */
  private static final int STOCK = 10_000_000;

  private final Scenario scenario;
  private final Settings settings;
  private final Path logs;
  private final String secret;
  private final List<ShopProcess> instances = new ArrayList<>();
  private final ServiceResources resources;
  private PrivateRedis redis;
  private PrivatePostgres postgres;
  private PrivateRedisSentinel sentinel;
  private Proxies proxies;
  private final ExecutorService starting =
      Executors.newCachedThreadPool(LoadGenerator.daemon("chaos-restart"));
  private final Thread killOnExit = new Thread(this::killProcesses, "chaos-kill-on-exit");

  private ShopFleet(Scenario scenario, Settings settings, Path logs) {
    this.scenario = scenario;
    this.settings = settings;
    this.logs = logs;
    byte[] random = new byte[16];
    new SecureRandom().nextBytes(random);
    this.secret = "chaos-" + HexFormat.of().formatHex(random);
    this.resources = new ServiceResources(settings);
    // Ctrl-C must not leave shops or private servers running.
    Runtime.getRuntime().addShutdownHook(killOnExit);
  }

  private void killProcesses() {
    try {
      stopProcesses();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Starts everything and returns once every instance answers. */
  static ShopFleet start(Scenario scenario, Settings settings) throws Exception {
    Path logs = settings.workDir().resolve(scenario.name());
    Files.createDirectories(logs);
    try (var old = Files.newDirectoryStream(logs, "*.log")) {
      for (Path log : old) {
        Files.delete(log); // a restart appends to its instance's log; a new run starts afresh
      }
    }
    ShopFleet fleet = new ShopFleet(scenario, settings, logs);
    try {
      fleet.boot();
      return fleet;
    } catch (Exception e) {
      try {
        fleet.close();
      } catch (Exception cleanup) {
        e.addSuppressed(cleanup);
      }
      throw e;
    }
  }

  private void boot() throws Exception {
    String dbHost = settings.postgresHost();
    int dbPort = settings.postgresPort();
    String redisUrl = "";
    if (scenario.backend() == Backend.SERVICES) {
      resources.prepare();
      if (scenario.faults().stream().anyMatch(f -> f.action().needsPrivatePostgres())) {
        postgres = PrivatePostgres.start(logs.resolve("postgres.log").toFile());
        postgres.createDatabase(ServiceResources.DATABASE);
        dbHost = "127.0.0.1";
        dbPort = postgres.port();
      }
      if (scenario.faults().stream().anyMatch(f -> f.action().needsSentinel())) {
        sentinel = PrivateRedisSentinel.start(logs.resolve("redis").toFile());
        redisUrl = sentinel.url();
      } else {
        redis = PrivateRedis.start(logs.resolve("redis.log").toFile());
        redisUrl = redis.url();
      }
      if (scenario.faults().stream().anyMatch(f -> f.action().needsProxy())) {
        proxies = Proxies.start(scenario.instances(), dbHost, dbPort, "127.0.0.1", redis.port());
      }
    }
    Map<String, String> environment = Map.of("SPRING_APPLICATION_JSON", usersJson());
    for (int i = 1; i <= scenario.instances(); i++) {
      // With proxies, each shop reaches its stores through a pair of its own.
      List<String> command =
          proxies == null
              ? command(dbHost, dbPort, redisUrl)
              : command(
                  "127.0.0.1",
                  proxies.databasePort(i),
                  "redis://127.0.0.1:" + proxies.redisPort(i));
      instances.add(
          new ShopProcess(i, freePort(), command, environment, logs.resolve("shop-" + i + ".log")));
    }
    // The first one alone (it runs the migrations), then the others together.
    instances.get(0).launch();
    instances.get(0).awaitReady(ADMIN_PASSWORD);
    ExecutorService starting = Executors.newCachedThreadPool(LoadGenerator.daemon("chaos-start"));
    try {
      List<Future<?>> ready = new ArrayList<>();
      for (ShopProcess instance : instances.subList(1, instances.size())) {
        instance.launch();
        ready.add(
            starting.submit(
                () -> {
                  instance.awaitReady(ADMIN_PASSWORD);
                  return null;
                }));
      }
      for (Future<?> f : ready) {
        f.get();
      }
    } finally {
      starting.shutdownNow();
    }
  }

  private List<String> command(String dbHost, int dbPort, String redisUrl) {
    List<String> c = new ArrayList<>();
    c.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // Small heaps and the quick compiler: several shops start at once on a small machine.
    c.addAll(List.of("-Xms64m", "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
    c.add("-jar");
    c.add(settings.shopJar().toString());
    c.add("--shop.gateway.secret=" + secret);
    // a killed instance's payment flows are finished by the completer well within the wait too
    c.add("--idem.completer.interval=1s");
    c.add("--idem.completer.first-backoff=2s");
    c.add("--idem.policies.payment-flow.lease=5s");
    // a killed instance's deliveries go stale and are resubmitted well within the wait for quiet
    c.add("--spring.modulith.events.staleness.published=10s");
    c.add("--spring.modulith.events.staleness.processing=10s");
    c.add("--spring.modulith.events.staleness.resubmission=10s");
    c.add("--spring.modulith.events.staleness.check-intervall=2s");
    c.add("--shop.messaging.resubmit-interval=1s");
    c.add("--shop.messaging.resubmit-older-than=3s");
    c.add("--logging.level.root=WARN");
    c.add("--logging.level.dev.idem.shop=INFO"); // its start-up line says how long it took
    for (String sku : List.of("BOOK", "MUG", "TSHIRT", "STICKER")) {
      c.add("--shop.catalog.stock." + sku + "=" + STOCK);
    }
    if (scenario.backend() == Backend.SERVICES) {
      c.add("--spring.profiles.active=services");
      c.add("--spring.datasource.url=" + resources.jdbcUrl(dbHost, dbPort));
      c.add("--spring.datasource.username=" + settings.postgresUser());
      c.add("--spring.datasource.hikari.connection-timeout=5000");
      // The PostgreSQL server is shared: a few connections per shop are plenty for the load.
      c.add("--spring.datasource.hikari.maximum-pool-size=5");
      c.add("--shop.redis.url=" + redisUrl);
      c.add("--idem.redis.key-prefix=chaos:idem:");
      c.add("--shop.rabbit.exchange=" + ServiceResources.EXCHANGE);
      c.add("--shop.rabbit.queue=" + ServiceResources.QUEUE);
      c.add("--spring.rabbitmq.host=" + settings.rabbitHost());
      c.add("--spring.rabbitmq.port=" + settings.rabbitPort());
    }
    scenario.shop().forEach((k, v) -> c.add("--" + k + "=" + v));
    return c;
  }

  private String usersJson() {
    StringBuilder json = new StringBuilder("{\"shop\":{\"users\":{");
    json.append("\"admin\":{\"password\":\"")
        .append(ADMIN_PASSWORD)
        .append("\",\"roles\":[\"ADMIN\"]}");
    for (int i = 0; i < scenario.users(); i++) {
      String user = LoadGenerator.user(i);
      json.append(",\"").append(user).append("\":{\"password\":\"").append(user);
      json.append("\",\"balance\":\"").append(BALANCE).append("\"}");
    }
    return json.append("}}}").toString();
  }

  List<URI> endpoints() {
    return instances.stream().map(ShopProcess::uri).toList();
  }

  String gatewaySecret() {
    return secret;
  }

  /** The first instance that is up, for the checks after the load (0-based). */
  int liveInstance() {
    for (int i = 0; i < instances.size(); i++) {
      if (instances.get(i).alive()) {
        return i;
      }
    }
    throw new IllegalStateException("no shop instance is up");
  }

  /**
   * Applies a fault. A restart of a shop returns once its process is launched; the future completes
   * when it answers (a start on a busy machine can take long, and the faults after it should not
   * wait). Every other fault is done when this returns.
   */
  CompletableFuture<Void> apply(Scenario.Fault fault) throws Exception {
    switch (fault.action()) {
      case KILL -> instances.get(fault.instance() - 1).kill();
      case RESTART -> {
        ShopProcess instance = instances.get(fault.instance() - 1);
        if (!instance.alive()) {
          instance.launch();
          return CompletableFuture.runAsync(
              () -> {
                try {
                  instance.awaitReady(ADMIN_PASSWORD);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  throw new IllegalStateException("interrupted", e);
                }
              },
              starting);
        }
      }
      case FLUSH_REDIS -> redis.flushAll();
      case RESTART_REDIS -> redis.restart();
      case DB_LATENCY, DB_CUT, REDIS_LATENCY, REDIS_CUT, PARTITION, HEAL -> proxies.apply(fault);
      case FAILOVER_REDIS -> sentinel.failover();
      case STOP_POSTGRES -> postgres.stop();
      case START_POSTGRES -> postgres.begin();
    }
    return CompletableFuture.completedFuture(null);
  }

  // The shops first, then the servers they stand on.
  private void stopProcesses() throws InterruptedException {
    for (ShopProcess instance : instances) {
      instance.kill();
    }
    for (AutoCloseable server : new AutoCloseable[] {redis, postgres, sentinel}) {
      if (server != null) {
        try {
          server.close();
        } catch (InterruptedException e) {
          throw e;
        } catch (Exception e) {
          // a server already gone
        }
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  @Override
  public void close() throws Exception {
    try {
      Runtime.getRuntime().removeShutdownHook(killOnExit);
    } catch (IllegalStateException e) {
      // already shutting down: the hook does the killing
    }
    starting.shutdownNow();
    stopProcesses();
    if (proxies != null) {
      proxies.close();
    }
    if (scenario.backend() == Backend.SERVICES) {
      resources.cleanUp();
    }
  }
}
