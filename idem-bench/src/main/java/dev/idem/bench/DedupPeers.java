package dev.idem.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.core.Idempotency;
import dev.idem.core.consumer.IdempotentConsumer;
import dev.idem.jdbc.JdbcDialect;
import dev.idem.jdbc.JdbcInbox;
import dev.idem.jdbc.JdbcSchema;
import dev.idem.jdbc.JdbcStoreConfig;
import dev.idem.redis.RedisIdempotencyStore;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import org.aopalliance.intercept.MethodInterceptor;
import org.apache.camel.CamelContext;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.processor.idempotent.jdbc.JdbcMessageIdRepository;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.channel.NullChannel;
import org.springframework.integration.handler.advice.IdempotentReceiverInterceptor;
import org.springframework.integration.jdbc.metadata.JdbcMetadataStore;
import org.springframework.integration.metadata.ConcurrentMetadataStore;
import org.springframework.integration.redis.metadata.RedisMetadataStore;
import org.springframework.integration.selector.MetadataStoreSelector;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHandler;
import org.springframework.messaging.support.MessageBuilder;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The de-duplicators of the dedup-peers benchmark, each over one HikariCP pool of {@value #POOL}
 * connections to PostgreSQL, where every effect is written: Idem's {@link IdempotentConsumer} on
 * Redis and {@link JdbcInbox} on PostgreSQL, and Spring Integration's {@link
 * IdempotentReceiverInterceptor} with a {@link RedisMetadataStore} and with a {@link
 * JdbcMetadataStore}, and Camel's idempotent consumer with a {@link JdbcMessageIdRepository}.
 */
final class DedupPeers {

  static final String IDEM_REDIS = "Idem IdempotentConsumer, Redis store";
  static final String SPRING_REDIS = "Spring Integration RedisMetadataStore";
  static final String IDEM_JDBC = "Idem JdbcInbox";
  static final String SPRING_JDBC = "Spring Integration JdbcMetadataStore";
  static final String CAMEL_JDBC = "Camel JdbcMessageIdRepository";

  /** Connections of each peer's pool. */
  static final int POOL = 10;

  /** The consumer group (Idem) or region (Spring Integration) of the benchmark. */
  static final String GROUP = "bench";

  private static final String INBOX_TABLE = "bench_peer_inbox";
  private static final String METADATA_PREFIX = "BENCH_PEER_";
  private static final String CAMEL_TABLE = "bench_peer_camel_processed";
  private static final String CAMEL_ROUTE = "direct:bench-dedup";
  private static final String MESSAGE_ID_HEADER = "benchMessageId";
  private static final String EFFECT_HEADER = "benchEffect";

  private DedupPeers() {}

  /** All five, each Idem peer before the peers on the same server. */
  static List<DedupPeer> all(RedisRig rig, String url) throws Exception {
    return Peers.build(
        List.of(
            () -> idemRedis(rig, url),
            () -> springRedis(rig, url),
            () -> idemJdbc(url),
            () -> springJdbc(url),
            () -> camelJdbc(url)),
        DedupPeer::shutdown);
  }

  /**
   * {@code IdempotentConsumer.process(id, effect)} on a {@link RedisIdempotencyStore}; the effect
   * commits on its own. A copy that comes while another is handled is refused as in progress and
   * delivered again.
   */
  static DedupPeer idemRedis(RedisRig rig, String url) {
    HikariDataSource pool = BenchJdbc.pool(url, "dedup-idem-redis", POOL);
    RedisIdempotencyStore store =
        RedisIdempotencyStore.create(rig.client(), rig.prefix() + "dedup-idem:");
    Idempotency engine = Idempotency.builder(store).build();
    IdempotentConsumer consumer = new IdempotentConsumer(engine, GROUP);
    return new DedupPeer(
        IDEM_REDIS,
        "Redis",
        (id, effect) ->
            consumer.process(
                id,
                ctx -> {
                  try (Connection connection = pool.getConnection()) {
                    effect.apply(connection);
                  }
                  return null;
                }),
        () -> {
          engine.close();
          store.close();
          pool.close();
        });
  }

  /**
   * The idempotent receiver over a {@link RedisMetadataStore} (a hash under the run's prefix); a
   * duplicate goes to a discard channel. The id is marked before the effect runs.
   */
  static DedupPeer springRedis(RedisRig rig, String url) {
    HikariDataSource pool = BenchJdbc.pool(url, "dedup-spring-redis", POOL);
    LettuceConnectionFactory factory = RedisLockPeers.connectionFactory(rig);
    RedisMetadataStore store = new RedisMetadataStore(factory, rig.prefix() + "dedup-spring");
    MessageHandler handler =
        receiver(
            store,
            message -> {
              try (Connection connection = pool.getConnection()) {
                apply(message, connection);
              }
            });
    return new DedupPeer(
        SPRING_REDIS,
        "Redis",
        (id, effect) -> handler.handleMessage(message(id, effect)),
        () -> {
          factory.destroy();
          pool.close();
        });
  }

  /** {@code JdbcInbox.receive(id, effect)}: the inbox row commits with the effect. */
  static DedupPeer idemJdbc(String url) {
    HikariDataSource pool = BenchJdbc.pool(url, "dedup-idem-jdbc", POOL);
    JdbcStoreConfig.Builder config =
        JdbcStoreConfig.custom(JdbcDialect.postgresql()).table(INBOX_TABLE);
    JdbcSchema.createIfMissing(pool, config.build());
    JdbcInbox inbox = new JdbcInbox(pool, config, GROUP);
    return new DedupPeer(
        IDEM_JDBC,
        "PostgreSQL",
        (id, effect) -> inbox.receive(id, effect::apply),
        () -> {
          inbox.close();
          BenchJdbc.execute(pool, "DROP TABLE IF EXISTS " + INBOX_TABLE);
          pool.close();
        });
  }

  /**
   * The idempotent receiver over a {@link JdbcMetadataStore} on the table of the jar's PostgreSQL
   * schema, each delivery in one transaction ({@link TransactionTemplate}) with the effect, so that
   * a failed effect takes its mark back with it.
   */
  static DedupPeer springJdbc(String url) throws SQLException, IOException {
    HikariDataSource pool = BenchJdbc.pool(url, "dedup-spring-jdbc", POOL);
    BenchJdbc.execute(pool, BenchJdbc.springIntegrationTable("METADATA_STORE", METADATA_PREFIX));
    JdbcMetadataStore store = new JdbcMetadataStore(pool);
    store.setTablePrefix(METADATA_PREFIX);
    store.setRegion(GROUP);
    store.afterPropertiesSet();
    TransactionTemplate transactions =
        new TransactionTemplate(new DataSourceTransactionManager(pool));
    MessageHandler handler =
        receiver(
            store,
            message -> {
              Connection connection = DataSourceUtils.getConnection(pool);
              try {
                apply(message, connection);
              } finally {
                DataSourceUtils.releaseConnection(connection, pool);
              }
            });
    return new DedupPeer(
        SPRING_JDBC,
        "PostgreSQL",
        (id, effect) ->
            transactions.executeWithoutResult(status -> handler.handleMessage(message(id, effect))),
        () -> {
          BenchJdbc.execute(pool, "DROP TABLE IF EXISTS " + METADATA_PREFIX + "METADATA_STORE");
          pool.close();
        });
  }

  /**
   * Camel's idempotent consumer over a {@link JdbcMessageIdRepository} (the table Camel creates,
   * under a name of the run's), in a route of its own: the id is added before the effect, which
   * commits on its own connection, and taken back when the route fails (Camel's defaults, eager and
   * remove on failure). A duplicate is skipped.
   */
  static DedupPeer camelJdbc(String url) throws Exception {
    HikariDataSource pool = BenchJdbc.pool(url, "dedup-camel-jdbc", POOL);
    JdbcMessageIdRepository repository = new JdbcMessageIdRepository(pool, GROUP);
    repository.setTableName(CAMEL_TABLE);
    CamelContext camel = new DefaultCamelContext();
    try {
      camel.addRoutes(
          new RouteBuilder() {
            @Override
            public void configure() {
              from(CAMEL_ROUTE)
                  .idempotentConsumer(header(MESSAGE_ID_HEADER), repository)
                  .process(
                      exchange -> {
                        DedupPeer.Effect effect =
                            exchange.getMessage().getHeader(EFFECT_HEADER, DedupPeer.Effect.class);
                        try (Connection connection = pool.getConnection()) {
                          effect.apply(connection);
                        }
                      });
            }
          });
      camel.start();
    } catch (Exception | Error e) {
      camel.close();
      pool.close();
      throw e;
    }
    ProducerTemplate producer = camel.createProducerTemplate();
    return new DedupPeer(
        CAMEL_JDBC,
        "PostgreSQL",
        (id, effect) ->
            producer.sendBodyAndHeaders(
                CAMEL_ROUTE, id, Map.of(MESSAGE_ID_HEADER, id, EFFECT_HEADER, effect)),
        () -> {
          camel.close();
          BenchJdbc.execute(pool, "DROP TABLE IF EXISTS " + CAMEL_TABLE);
          pool.close();
        });
  }

  /** What a receiving handler does with a message. */
  @FunctionalInterface
  private interface Handle {
    void handle(Message<?> message) throws Exception;
  }

  // The handler behind an IdempotentReceiverInterceptor keyed by the message's id header, whose
  // duplicates go to a NullChannel.
  private static MessageHandler receiver(ConcurrentMetadataStore store, Handle handle) {
    MetadataStoreSelector selector =
        new MetadataStoreSelector(
            message -> (String) message.getHeaders().get(MESSAGE_ID_HEADER), store);
    IdempotentReceiverInterceptor interceptor = new IdempotentReceiverInterceptor(selector);
    interceptor.setDiscardChannel(new NullChannel());
    MessageHandler target =
        message -> {
          try {
            handle.handle(message);
          } catch (RuntimeException e) {
            throw e;
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        };
    ProxyFactory proxy = new ProxyFactory(target);
    proxy.addAdvice((MethodInterceptor) interceptor);
    return (MessageHandler) proxy.getProxy();
  }

  private static Message<String> message(String id, DedupPeer.Effect effect) {
    return MessageBuilder.withPayload(id)
        .setHeader(MESSAGE_ID_HEADER, id)
        .setHeader(EFFECT_HEADER, effect)
        .build();
  }

  private static void apply(Message<?> message, Connection connection) throws Exception {
    ((DedupPeer.Effect) message.getHeaders().get(EFFECT_HEADER)).apply(connection);
  }
}
