package dev.idem.bench;

import dev.idem.testsupport.Machine;
import dev.idem.testsupport.servers.ShopProcess;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The shop end to end, in one run: checkouts per second (an order, then its wallet payment, each a
 * POST under a fresh {@code Idempotency-Key}, by logged-in users) with the starter's HTTP
 * protection on and off ({@code --idem.http.enabled=false}, the same jar) on the embedded default
 * and on profile services, and the open catalogue ({@code GET /api/products}) with and without HTTP
 * Basic credentials, which prices the login. Writes the {@code shop} section of {@code
 * docs/benchmarks.md}. The shops run side by side as child processes and the scenarios take turns
 * round after round, so that a change in the machine's load falls on all of them alike.
 *
 * <p>Arguments: {@code --quick} for a short, rough run; {@code --doc=PATH} to write elsewhere;
 * {@code --users=N} clients (default {@value #DEFAULT_USERS}), each its own shop user; {@code
 * --shop-jar=PATH} (default {@value #SHOP_JAR}). Profile services runs on databases of its own on
 * the PostgreSQL at {@code 127.0.0.1:5432} (dropped at the end), the Redis at {@code
 * 127.0.0.1:6379} (keys under a per-run prefix, which expire) and the RabbitMQ at {@code
 * 127.0.0.1:5672}.
 */
public final class ShopBench {

  static final int DEFAULT_USERS = 8;
  static final String SHOP_JAR = "examples/shop/target/idem-shop-0.1.0-SNAPSHOT.jar";

  private static final String ADMIN_PASSWORD = "bench-admin";
  private static final String ORDER = "{\"items\":[{\"sku\":\"STICKER\",\"quantity\":1}]}";
  private static final String WALLET = "{\"method\":\"WALLET\"}";
  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** The shops, by name; the first serves the catalogue scenarios too. */
  static final List<String> SHOPS =
      List.of("embedded, Idem on", "embedded, Idem off", "services, Idem on", "services, Idem off");

  /**
   * How long the run measures: {@code rounds} windows per scenario, each after its own warmup; a
   * first warmup per scenario while the JIT compiles the shops.
   */
  record Plan(int rounds, Duration firstWarmup, Duration warmup, Duration window) {

    static Plan full() {
      return new Plan(5, Duration.ofSeconds(15), Duration.ofSeconds(2), Duration.ofSeconds(5));
    }

    static Plan quick() {
      return new Plan(1, Duration.ofSeconds(2), Duration.ofMillis(500), Duration.ofSeconds(2));
    }
  }

  /** A shop process and how to reach it. */
  record Shop(String name, ShopProcess process, String database) {}

  /** One measured load: {@code operation} run by every client against {@code shop}. */
  record Scenario(String name, Shop shop, LoadDriver.Operation operation) {}

  private ShopBench() {}

  public static void main(String[] args) throws Exception {
    boolean quick = false;
    int users = DEFAULT_USERS;
    Path doc = Path.of(BenchReport.DOC);
    Path jar = Path.of(SHOP_JAR);
    String only = "";
    for (String arg : args) {
      if (arg.equals("--quick")) {
        quick = true;
      } else if (arg.startsWith("--doc=")) {
        doc = Path.of(arg.substring("--doc=".length()));
      } else if (arg.startsWith("--users=")) {
        users = Integer.parseInt(arg.substring("--users=".length()));
      } else if (arg.startsWith("--shop-jar=")) {
        jar = Path.of(arg.substring("--shop-jar=".length()));
      } else if (arg.startsWith("--only=")) {
        only = arg.substring("--only=".length());
      } else {
        throw new IllegalArgumentException(
            "unknown argument "
                + arg
                + "; use --quick, --doc=PATH, --users=N, --shop-jar=PATH, --only=TEXT");
      }
    }
    if (!Files.isRegularFile(jar)) {
      throw new IllegalArgumentException("no shop jar at " + jar + " (scripts/bench builds it)");
    }
    Plan plan = quick ? Plan.quick() : Plan.full();
    Machine machine = Machine.current();
    Instant started = Instant.now();
    String run = UUID.randomUUID().toString().substring(0, 8);
    List<Shop> shops = new ArrayList<>();
    ShopReport report;
    try {
      for (String name : SHOPS) {
        if (name.contains(only)) {
          boolean on = name.endsWith(" on");
          String database =
              name.startsWith("services") ? "shop_bench_" + (on ? "on" : "off") : null;
          shops.add(start(jar, run, name, users, database, on));
        }
      }
      List<Scenario> scenarios = scenarios(shops, users);
      report =
          new ShopReport(
              scenarios.stream().map(Scenario::name).toList(),
              measure(scenarios, users, plan),
              machine,
              Machine.current().loadAverage(),
              started,
              quick,
              plan,
              users);
    } finally {
      for (Shop shop : shops) {
        shop.process().close();
        if (shop.database() != null) {
          dropDatabase(shop.database());
        }
      }
    }
    new GeneratedSection(doc, "shop", BenchReport.DOC_INTRO)
        .write(String.join("\n", report.section()));
    System.out.println();
    report.table().forEach(System.out::println);
    System.out.println("Written to " + doc);
  }

  private static List<Scenario> scenarios(List<Shop> shops, int users) {
    List<Scenario> scenarios = new ArrayList<>();
    for (Shop shop : shops) {
      scenarios.add(new Scenario(shop.name() + ": checkout", shop, checkout(shop, users)));
    }
    if (!shops.get(0).name().equals(SHOPS.get(0))) {
      return scenarios;
    }
    Shop embedded = shops.get(0);
    scenarios.add(
        new Scenario(ShopReport.CATALOGUE_ANONYMOUS, embedded, catalogue(embedded, users, false)));
    scenarios.add(
        new Scenario(ShopReport.CATALOGUE_LOGGED_IN, embedded, catalogue(embedded, users, true)));
    return scenarios;
  }

  /** Round {@code r} starts at scenario {@code r}, so that none always follows the same one. */
  private static List<List<LoadDriver.Result>> measure(
      List<Scenario> scenarios, int users, Plan plan) throws InterruptedException {
    for (Scenario scenario : scenarios) {
      System.out.println("warming up " + scenario.name());
      new LoadDriver(users, plan.firstWarmup(), Duration.ofMillis(100)).run(scenario.operation());
    }
    List<List<LoadDriver.Result>> rounds = new ArrayList<>();
    for (int round = 0; round < plan.rounds(); round++) {
      LoadDriver.Result[] results = new LoadDriver.Result[scenarios.size()];
      for (int turn = 0; turn < scenarios.size(); turn++) {
        int index = (round + turn) % scenarios.size();
        Scenario scenario = scenarios.get(index);
        LoadDriver.Result result =
            new LoadDriver(users, plan.warmup(), plan.window()).run(scenario.operation());
        System.out.printf(
            "round %d, %s: %.0f/s, p50 %.1f ms, p99 %.1f ms%n",
            round + 1,
            scenario.name(),
            result.perSecond(),
            result.p50Nanos() / 1e6,
            result.p99Nanos() / 1e6);
        results[index] = result;
      }
      rounds.add(List.of(results));
    }
    return rounds;
  }

  // One order and its wallet payment, each under a fresh key; any other answer fails the run.
  private static LoadDriver.Operation checkout(Shop shop, int users) {
    Clients clients = new Clients(shop, users);
    return () -> {
      Client client = clients.mine();
      JsonNode order = client.post("/api/orders", ORDER, 201);
      String orderNo = order.path("orderNo").asString();
      JsonNode payment = client.post("/api/orders/" + orderNo + "/payments", WALLET, 201);
      if (!"SUCCESS".equals(payment.path("status").asString())) {
        throw new IllegalStateException(orderNo + " not paid: " + payment);
      }
    };
  }

  private static LoadDriver.Operation catalogue(Shop shop, int users, boolean loggedIn) {
    Clients clients = new Clients(shop, users);
    return () -> clients.mine().get("/api/products", loggedIn);
  }

  private static Shop start(
      Path jar, String run, String name, int users, String database, boolean idem)
      throws IOException, InterruptedException, SQLException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(List.of("-Xms256m", "-Xmx512m", "-jar", jar.toString()));
    command.add("--logging.level.root=WARN");
    command.add("--shop.catalog.stock.STICKER=1000000000");
    command.add("--shop.gateway.callbacks=false");
    command.add("--idem.http.enabled=" + idem);
    command.add("--shop.users.admin.password=" + ADMIN_PASSWORD);
    command.add("--shop.users.admin.roles=ADMIN");
    for (int i = 0; i < users; i++) {
      command.add("--shop.users." + user(i) + ".password=" + user(i));
      command.add("--shop.users." + user(i) + ".balance=1000000000.00");
    }
    if (database != null) {
      createDatabase(database);
      String suffix = database.replace('_', '-');
      command.add("--spring.profiles.active=services");
      command.add("--spring.datasource.url=jdbc:postgresql://127.0.0.1:5432/" + database);
      command.add("--shop.gateway.secret=bench-" + run);
      command.add("--idem.redis.key-prefix=" + suffix + ":" + run + ":");
      command.add("--shop.rabbit.exchange=" + suffix + ".events");
      command.add("--shop.rabbit.queue=" + suffix + ".loyalty");
    }
    Path log = Files.createTempFile("shop-bench-", ".log");
    ShopProcess process = new ShopProcess(0, freePort(), command, Map.of(), log);
    System.out.println("starting " + name + " (log " + log + ")");
    process.launch();
    process.awaitReady(ADMIN_PASSWORD);
    return new Shop(name, process, database);
  }

  static String user(int i) {
    return "bench" + i;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static void createDatabase(String name) throws SQLException {
    dropDatabase(name);
    try (var c = admin();
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    }
  }

  private static void dropDatabase(String name) throws SQLException {
    try (var c = admin();
        Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }
  }

  private static java.sql.Connection admin() throws SQLException {
    return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/postgres", "postgres", "");
  }

  /** One client per load thread, each logged in as a user of its own. */
  private static final class Clients {
    private final Shop shop;
    private final int users;
    private final AtomicInteger next = new AtomicInteger();
    private final ThreadLocal<Client> mine;

    Clients(Shop shop, int users) {
      this.shop = shop;
      this.users = users;
      this.mine = ThreadLocal.withInitial(() -> new Client(shop.process().uri(), user(take())));
    }

    private int take() {
      return Math.floorMod(next.getAndIncrement(), users);
    }

    Client mine() {
      return mine.get();
    }
  }

  private record Client(URI base, String user, HttpClient http, String authorization) {

    Client(URI base, String user) {
      this(
          base,
          user,
          HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build(),
          "Basic "
              + Base64.getEncoder()
                  .encodeToString((user + ":" + user).getBytes(StandardCharsets.UTF_8)));
    }

    JsonNode post(String path, String body, int expected) throws Exception {
      HttpRequest request =
          HttpRequest.newBuilder(base.resolve(path))
              .header("Authorization", authorization)
              .header("Content-Type", "application/json")
              .header("Idempotency-Key", UUID.randomUUID().toString())
              .POST(HttpRequest.BodyPublishers.ofString(body))
              .build();
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != expected) {
        throw new IllegalStateException(
            "POST " + path + " answered " + response.statusCode() + ": " + response.body());
      }
      return JSON.readTree(response.body());
    }

    void get(String path, boolean loggedIn) throws Exception {
      HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path)).GET();
      if (loggedIn) {
        request.header("Authorization", authorization);
      }
      HttpResponse<Void> response =
          http.send(request.build(), HttpResponse.BodyHandlers.discarding());
      if (response.statusCode() != 200) {
        throw new IllegalStateException("GET " + path + " answered " + response.statusCode());
      }
    }
  }
}
