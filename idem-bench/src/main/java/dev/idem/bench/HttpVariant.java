package dev.idem.bench;

import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.redis.RedisIdempotencyStore;
import dev.idem.spring.web.IdempotencyFilter;
import dev.idem.spring.webflux.IdempotencyWebFilter;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.resource.EpollProvider;
import jakarta.servlet.Filter;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.server.WebFilter;

/**
 * One running copy of {@link HttpBenchApp} on a random loopback port: without the starter, or with
 * it on one store. Starting it checks that the variant is what it claims: the starter's beans are
 * absent (or present with the expected store), and a key sent twice runs the handler twice without
 * the starter and once with it. Closing it deletes what the store wrote.
 */
final class HttpVariant implements AutoCloseable {

  /** The variants of one run. */
  enum Kind {
    NONE("no starter"),
    MINIMAL_REDIS_PAIR("no starter, hand-written Redis pair"),
    MEMORY("in-memory"),
    REDIS("Redis"),
    REDIS_CONSOLIDATED("Redis, flushes consolidated"),
    POSTGRES("PostgreSQL"),
    WEBFLUX_NONE("WebFlux, no starter"),
    WEBFLUX_MEMORY("WebFlux, in-memory"),
    WEBFLUX_REDIS("WebFlux, Redis");

    final String label;

    Kind(String label) {
      this.label = label;
    }

    /** Whether the copy runs on WebFlux (Reactor Netty) rather than Spring MVC (Tomcat). */
    boolean reactive() {
      return this == WEBFLUX_NONE || this == WEBFLUX_MEMORY || this == WEBFLUX_REDIS;
    }
  }

  /** Room for every first call of a full run at the full rate of a fast machine. */
  static final int MEMORY_MAX_ENTRIES = 20_000_000;

  /** The JDBC variant's records table, dropped at the end of the run. */
  static final String TABLE = "idem_bench_http";

  private final Kind kind;
  private final ConfigurableApplicationContext context;
  private final HttpBenchController controller;
  private final int port;
  private final String redisPrefix;

  private HttpVariant(Kind kind, ConfigurableApplicationContext context, String redisPrefix) {
    this.kind = kind;
    this.context = context;
    this.controller = context.getBean(HttpBenchController.class);
    this.port = ((WebServerApplicationContext) context).getWebServer().getPort();
    this.redisPrefix = redisPrefix;
  }

  /**
   * Starts the application for {@code kind} and checks it.
   *
   * @param run this run's id, part of every Redis key
   * @param users virtual users, the size of the JDBC variant's pool
   */
  static HttpVariant start(Kind kind, String run, int users, String redisUri, String postgresUrl)
      throws IOException {
    Map<String, Object> properties = new LinkedHashMap<>();
    properties.put("server.address", "127.0.0.1");
    properties.put("server.port", 0);
    // a connection serves any number of requests, as a load balancer's pooled connections do
    properties.put("server.tomcat.max-keep-alive-requests", -1);
    properties.put("spring.main.banner-mode", "off");
    properties.put("spring.jmx.enabled", false);
    properties.put("logging.level.root", "warn");
    // records left behind by an interrupted run expire on their own
    properties.put("idem.defaults.retention", "1h");
    properties.put("idem.http.token-path", "");
    // one anonymous caller sends every request: the default cap of live records per caller would
    // refuse the run's first calls after 10 000
    properties.put("idem.http.max-records-per-caller", 0);
    String redisPrefix = null;
    if (kind.reactive()) {
      properties.put("spring.main.web-application-type", "reactive");
    }
    switch (kind) {
      case NONE, WEBFLUX_NONE ->
          properties.put("spring.autoconfigure.exclude", idemAutoConfigurations());
      case MINIMAL_REDIS_PAIR -> {
        redisPrefix = "idem-bench-http-pair:" + run + ":";
        properties.put("spring.autoconfigure.exclude", idemAutoConfigurations());
        properties.put(HttpBenchApp.REDIS_URI, redisUri);
        properties.put(HttpBenchApp.MINIMAL_PAIR_PREFIX, redisPrefix);
      }
      case MEMORY, WEBFLUX_MEMORY -> {
        properties.put("idem.store", "memory");
        properties.put(HttpBenchApp.MEMORY_MAX_ENTRIES, MEMORY_MAX_ENTRIES);
      }
      case REDIS, REDIS_CONSOLIDATED, WEBFLUX_REDIS -> {
        redisPrefix = "idem-bench-http:" + run + ":" + kind.ordinal() + ":";
        properties.put("idem.store", "redis");
        properties.put("idem.redis.key-prefix", redisPrefix);
        properties.put(HttpBenchApp.REDIS_URI, redisUri);
        if (kind == Kind.REDIS_CONSOLIDATED) {
          properties.put(HttpBenchApp.REDIS_FLUSH_CONSOLIDATION, true);
        }
      }
      case POSTGRES -> {
        properties.put("idem.store", "jdbc");
        properties.put("idem.jdbc.table", TABLE);
        // the table is the run's own, dropped at the end: the starter creates it
        properties.put("idem.jdbc.initialize-schema", "always");
        properties.put(HttpBenchApp.POSTGRES_URL, postgresUrl);
        properties.put(HttpBenchApp.POOL_SIZE, users);
      }
    }
    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(HttpBenchApp.class).properties(properties).run();
    HttpVariant variant = new HttpVariant(kind, context, redisPrefix);
    try {
      variant.check(run);
    } catch (IOException | RuntimeException e) {
      variant.close();
      throw e;
    }
    return variant;
  }

  Kind kind() {
    return kind;
  }

  int port() {
    return port;
  }

  /** Whether the starter guards the endpoint. */
  boolean protects() {
    return kind != Kind.NONE && kind != Kind.MINIMAL_REDIS_PAIR && kind != Kind.WEBFLUX_NONE;
  }

  /** Whether a key sent again is refused (409) rather than run again or replayed. */
  private boolean refusesRepeats() {
    return kind == Kind.MINIMAL_REDIS_PAIR;
  }

  /** How many times the endpoint's handler ran so far. */
  long handlerRuns() {
    return controller.runs();
  }

  /** The store the starter runs on, or "none"; for Redis also the transport Lettuce uses. */
  String storeClass() {
    if (!protects()) {
      return "none";
    }
    String store = context.getBean(IdempotencyStore.class).getClass().getName();
    if (kind != Kind.REDIS && kind != Kind.REDIS_CONSOLIDATED && kind != Kind.WEBFLUX_REDIS) {
      return store;
    }
    boolean consolidated =
        context
            .getEnvironment()
            .getProperty(HttpBenchApp.REDIS_FLUSH_CONSOLIDATION, Boolean.class, false);
    return store
        + " (Lettuce over "
        + (EpollProvider.isAvailable() ? "epoll" : "NIO")
        + (consolidated ? ", flushes consolidated" : "")
        + ")";
  }

  /** Sends each of {@code keys} once, so that later requests with them are replays. */
  void complete(List<String> keys) throws IOException {
    try (RawHttpConnection connection = connection()) {
      for (String key : keys) {
        HttpConnection.Answer answer = connection.post(key);
        if (answer.status() != 201 || answer.replayed()) {
          throw new IllegalStateException(kind.label + ": first call of " + key + " got " + answer);
        }
      }
    }
  }

  RawHttpConnection connection() {
    return new RawHttpConnection(port, HttpBenchController.PATH, HttpBenchController.BODY);
  }

  private void check(String run) throws IOException {
    String[] filters =
        context.getBeanNamesForType(
            kind.reactive() ? IdempotencyWebFilter.class : IdempotencyFilter.class);
    boolean idemFilter =
        java.util.stream.Stream.concat(
                context.getBeansOfType(Filter.class).values().stream(),
                context.getBeansOfType(WebFilter.class).values().stream())
            .map(f -> f.getClass().getName())
            .anyMatch(name -> name.startsWith("dev.idem.") && !name.startsWith("dev.idem.bench."));
    Class<? extends IdempotencyStore> expected =
        switch (kind) {
          case NONE, MINIMAL_REDIS_PAIR, WEBFLUX_NONE -> null;
          case MEMORY, WEBFLUX_MEMORY -> InMemoryIdempotencyStore.class;
          case REDIS, REDIS_CONSOLIDATED, WEBFLUX_REDIS -> RedisIdempotencyStore.class;
          case POSTGRES -> JdbcIdempotencyStore.class;
        };
    if (expected == null) {
      if (filters.length > 0
          || idemFilter
          || context.getBeanNamesForType(IdempotencyStore.class).length > 0) {
        throw new IllegalStateException("the baseline application has Idem beans");
      }
    } else if (filters.length != 1
        || !expected.isInstance(context.getBean(IdempotencyStore.class))) {
      throw new IllegalStateException(
          kind.label + ": expected the filter and a " + expected.getSimpleName());
    }
    String key = "check-" + run;
    long before = handlerRuns();
    try (RawHttpConnection connection = connection()) {
      HttpConnection.Answer first = connection.post(key);
      HttpConnection.Answer second = connection.post(key);
      long ran = handlerRuns() - before;
      boolean ok =
          first.status() == 201
              && !first.replayed()
              && (refusesRepeats()
                  ? second.status() == 409 && ran == 1
                  : second.status() == 201
                      && second.replayed() == protects()
                      && ran == (protects() ? 1 : 2));
      if (!ok) {
        throw new IllegalStateException(
            kind.label + ": a key sent twice gave " + first + ", " + second + ", ran " + ran);
      }
    }
  }

  private static String idemAutoConfigurations() {
    return String.join(
        ",",
        ImportCandidates.load(AutoConfiguration.class, HttpVariant.class.getClassLoader())
            .getCandidates()
            .stream()
            .filter(name -> name.startsWith("dev.idem."))
            .toList());
  }

  /** Deletes the Redis keys or drops the table this variant wrote, then stops the application. */
  @Override
  public void close() {
    try {
      if (redisPrefix != null) {
        deleteRedisKeys(context.getBean(RedisClient.class));
      } else if (kind == Kind.POSTGRES) {
        dropTable(context.getBean(DataSource.class));
      }
    } finally {
      context.close();
    }
  }

  private void deleteRedisKeys(RedisClient client) {
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      RedisCommands<String, String> redis = connection.sync();
      ScanArgs match = ScanArgs.Builder.matches(redisPrefix + "*").limit(1000);
      ScanCursor cursor = ScanCursor.INITIAL;
      do {
        KeyScanCursor<String> page = redis.scan(cursor, match);
        if (!page.getKeys().isEmpty()) {
          redis.unlink(page.getKeys().toArray(String[]::new));
        }
        cursor = page;
      } while (!cursor.isFinished());
    }
  }

  private static void dropTable(DataSource dataSource) {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute("DROP TABLE IF EXISTS " + TABLE);
    } catch (SQLException e) {
      throw new IllegalStateException("could not drop " + TABLE, e);
    }
  }
}
