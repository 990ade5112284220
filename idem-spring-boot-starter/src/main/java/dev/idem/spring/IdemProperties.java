package dev.idem.spring;

import dev.idem.core.TokenService;
import dev.idem.core.memory.InMemoryIdempotencyStore;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.util.unit.DataSize;

/**
 * The {@code idem.*} properties: which store, the default policy, named per-operation policies,
 * tokens, HTTP, the in-memory store and listeners; the JDBC and Redis stores' own in {@link
 * IdemJdbcProperties} and {@link IdemRedisProperties}. Every unset value keeps the default of
 * {@link dev.idem.core.IdempotencyConfig}.
 *
 * <p>Over 400 lines because Spring Boot binds the {@code idem.*} tree to this class and its nested
 * ones, whose field comments are the properties' documentation; each group is a small nested class,
 * and a group that grows moves to a class of its own, as JDBC, Redis and the completer did.
 */
@ConfigurationProperties(prefix = "idem")
public class IdemProperties {

  /** Which store keeps the records. */
  public enum StoreType {
    /**
     * Redis if idem-redis is present and a Lettuce client or Spring Data Redis connection factory
     * exists, else JDBC if idem-jdbc is present and a DataSource exists, else memory.
     */
    AUTO,
    /** In-process map: one instance only, lost at restart. */
    MEMORY,
    /** The application's DataSource (table {@code idem_records}). */
    JDBC,
    /** The application's Lettuce client, or Spring Data Redis's connection. */
    REDIS
  }

  /** The default cap on one caller's live records, per route and for tokens: 10 000. */
  public static final int DEFAULT_MAX_PER_CALLER = 10_000;

  /** Which store keeps the records; auto picks Redis, then JDBC, then memory. */
  private StoreType store = StoreType.AUTO;

  /** The default policy, used by every operation without its own. */
  private final Policy defaults = new Policy();

  /** Named per-operation policies; unset values fall back to {@code idem.defaults}. */
  private final Map<String, Policy> policies = new LinkedHashMap<>();

  private final Tokens tokens = new Tokens();

  /** The HTTP filters, the token endpoint and the problem answers. */
  @NestedConfigurationProperty private final IdemHttpProperties http = new IdemHttpProperties();

  /** The JDBC store. */
  @NestedConfigurationProperty private final IdemJdbcProperties jdbc = new IdemJdbcProperties();

  /** The Redis store. */
  @NestedConfigurationProperty private final IdemRedisProperties redis = new IdemRedisProperties();

  /** The completer of resumable methods. */
  @NestedConfigurationProperty
  private final IdemCompleterProperties completer = new IdemCompleterProperties();

  /** The retries of the application's HTTP clients. */
  @NestedConfigurationProperty
  private final IdemClientProperties client = new IdemClientProperties();

  /** {@code @IdempotentListener} on Spring AMQP listeners. */
  private final Listeners amqp = new Listeners();

  /** {@code @IdempotentListener} on Spring Kafka listeners. */
  private final Listeners kafka = new Listeners();

  /** {@code @Idempotent} on {@code @Scheduled} methods keyed by their slot. */
  private final Scheduled scheduled = new Scheduled();

  /** {@code @Idempotent} on application event listeners. */
  private final Events events = new Events();

  private final Memory memory = new Memory();

  private final ReplayCache replayCache = new ReplayCache();

  public StoreType getStore() {
    return store;
  }

  public void setStore(StoreType store) {
    this.store = store;
  }

  public Policy getDefaults() {
    return defaults;
  }

  public Map<String, Policy> getPolicies() {
    return policies;
  }

  public Tokens getTokens() {
    return tokens;
  }

  public IdemHttpProperties getHttp() {
    return http;
  }

  public IdemJdbcProperties getJdbc() {
    return jdbc;
  }

  public IdemRedisProperties getRedis() {
    return redis;
  }

  public IdemCompleterProperties getCompleter() {
    return completer;
  }

  public Memory getMemory() {
    return memory;
  }

  public ReplayCache getReplayCache() {
    return replayCache;
  }

  /**
   * The local replay cache of the operations whose policy turns it on ({@code
   * idem.defaults.replay-cache} or {@code idem.policies.<operation>.replay-cache}).
   */
  public static class ReplayCache {
    /**
     * How long an answer read from the store may be replayed from memory: the longest any instance
     * replays an evicted answer, and how long an eviction waits before it returns; the same on
     * every instance (default 1s, at most 1m).
     */
    private Duration window = Duration.ofSeconds(1);

    /**
     * Most bytes the cache holds, each entry counting its outcome, twice its key's length and 256
     * bytes (default 64MB).
     */
    private DataSize maxBytes = DataSize.ofMegabytes(64);

    public Duration getWindow() {
      return window;
    }

    public void setWindow(Duration window) {
      this.window = window;
    }

    public DataSize getMaxBytes() {
      return maxBytes;
    }

    public void setMaxBytes(DataSize maxBytes) {
      this.maxBytes = maxBytes;
    }
  }

  /** The in-memory store's bounds (one instance only, lost at restart). */
  public static class Memory {
    /**
     * Most records held at once, one caller at most a quarter of them; a new key past it gets 429
     * store-full.
     */
    private int maxEntries = InMemoryIdempotencyStore.DEFAULT_MAX_ENTRIES;

    /** Most bytes held at once (outcomes and keys, estimated), one caller at most a quarter. */
    private DataSize maxBytes = DataSize.ofBytes(InMemoryIdempotencyStore.DEFAULT_MAX_BYTES);

    public int getMaxEntries() {
      return maxEntries;
    }

    public void setMaxEntries(int maxEntries) {
      this.maxEntries = maxEntries;
    }

    public DataSize getMaxBytes() {
      return maxBytes;
    }

    public void setMaxBytes(DataSize maxBytes) {
      this.maxBytes = maxBytes;
    }
  }

  public IdemClientProperties getClient() {
    return client;
  }

  public Listeners getAmqp() {
    return amqp;
  }

  public Listeners getKafka() {
    return kafka;
  }

  public Scheduled getScheduled() {
    return scheduled;
  }

  public Events getEvents() {
    return events;
  }

  /**
   * {@code @Idempotent} on application event listeners ({@code @EventListener},
   * {@code @TransactionalEventListener}, Spring Modulith's {@code @ApplicationModuleListener}).
   */
  public static class Events {

    /**
     * Where the listeners keep their records: {@code jdbc} writes them in the listener's
     * transaction on the application's DataSource whatever {@code idem.store} says, so an event an
     * outbox delivers again never applies twice.
     */
    private Listeners.Store store = Listeners.Store.DEFAULT;

    public Listeners.Store getStore() {
      return store;
    }

    public void setStore(Listeners.Store store) {
      this.store = store;
    }
  }

  /** {@code @Idempotent} on {@code @Scheduled} methods keyed by their slot. */
  public static class Scheduled {

    /** What a node that starts does with the cron slot it missed while it was down. */
    public enum Missed {
      /** Nothing: it runs from the next slot on, as Spring's scheduler does. */
      SKIP,
      /**
       * Runs the latest slot of each cron schedule once at start-up, unless a node ran it already
       * (it replays then): the slots before it stay missed.
       */
      RUN_LATEST
    }

    /** What a node that starts does with the latest cron slot it missed while it was down. */
    private Missed missed = Missed.SKIP;

    public Missed getMissed() {
      return missed;
    }

    public void setMissed(Missed missed) {
      this.missed = missed;
    }
  }

  /** One policy; null values inherit. */
  public static class Policy {
    /** How long a claim holds before another caller may take it over (default 30s). */
    private @Nullable Duration lease;

    /** How long a completed outcome is replayed (default 24h). */
    private @Nullable Duration retention;

    /** How long a duplicate in flight waits for the first result; 0 refuses it (default 0). */
    private @Nullable Duration wait;

    /** The Retry-After told to a refused duplicate (default 1s). */
    private @Nullable Duration retryAfter;

    /** Run work without deduplication while the store is down (default false). */
    private @Nullable Boolean failOpen;

    /**
     * Answer repeats of completed keys from this instance's memory, without a round trip, for at
     * most idem.replay-cache.window after they were read (default false).
     */
    private @Nullable Boolean replayCache;

    /** JSON fields left out of the fingerprint, as dot-separated paths (default none). */
    private @Nullable List<String> ignoreFields;

    /**
     * HTTP statuses answered to the client but not stored, freeing the key for a retry (default
     * none; 5xx answers are never stored).
     */
    private @Nullable List<Integer> retryableStatuses;

    public @Nullable Duration getLease() {
      return lease;
    }

    public void setLease(@Nullable Duration lease) {
      this.lease = lease;
    }

    public @Nullable Duration getRetention() {
      return retention;
    }

    public void setRetention(@Nullable Duration retention) {
      this.retention = retention;
    }

    public @Nullable Duration getWait() {
      return wait;
    }

    public void setWait(@Nullable Duration wait) {
      this.wait = wait;
    }

    public @Nullable Duration getRetryAfter() {
      return retryAfter;
    }

    public void setRetryAfter(@Nullable Duration retryAfter) {
      this.retryAfter = retryAfter;
    }

    public @Nullable Boolean getFailOpen() {
      return failOpen;
    }

    public void setFailOpen(@Nullable Boolean failOpen) {
      this.failOpen = failOpen;
    }

    public @Nullable Boolean getReplayCache() {
      return replayCache;
    }

    public void setReplayCache(@Nullable Boolean replayCache) {
      this.replayCache = replayCache;
    }

    public @Nullable List<String> getIgnoreFields() {
      return ignoreFields;
    }

    public void setIgnoreFields(@Nullable List<String> ignoreFields) {
      this.ignoreFields = ignoreFields;
    }

    public @Nullable List<Integer> getRetryableStatuses() {
      return retryableStatuses;
    }

    public void setRetryableStatuses(@Nullable List<Integer> retryableStatuses) {
      this.retryableStatuses = retryableStatuses;
    }
  }

  /** Server-issued tokens. */
  public static class Tokens {
    /** How long an issued token stays usable. */
    private Duration ttl = Duration.ofHours(1);

    /** True to replay the first answer to a used token; false to refuse it with 409. */
    private boolean replayUsed = true;

    /**
     * The most live tokens and records one caller's token scope holds: past it, issuing answers 429
     * store-full, so a caller asking for tokens in a loop cannot fill the store; 0 for none.
     */
    private int maxPerCaller = DEFAULT_MAX_PER_CALLER;

    /**
     * The most tokens this instance issues in a second across all callers: past it, issuing answers
     * 429 store-full, so that many accounts together cannot mint without bound either.
     */
    private int maxIssuedPerSecond = TokenService.DEFAULT_MAX_ISSUED_PER_SECOND;

    public int getMaxIssuedPerSecond() {
      return maxIssuedPerSecond;
    }

    public void setMaxIssuedPerSecond(int maxIssuedPerSecond) {
      this.maxIssuedPerSecond = maxIssuedPerSecond;
    }

    public int getMaxPerCaller() {
      return maxPerCaller;
    }

    public void setMaxPerCaller(int maxPerCaller) {
      this.maxPerCaller = maxPerCaller;
    }

    public Duration getTtl() {
      return ttl;
    }

    public void setTtl(Duration ttl) {
      this.ttl = ttl;
    }

    public boolean isReplayUsed() {
      return replayUsed;
    }

    public void setReplayUsed(boolean replayUsed) {
      this.replayUsed = replayUsed;
    }
  }

  /** {@code @IdempotentListener} support for one broker's listeners. */
  public static class Listeners {

    /** Where a broker's listeners keep their records. */
    public enum Store {
      /** The store of {@code idem.store}, which the HTTP filter and {@code @Idempotent} use. */
      DEFAULT,
      /**
       * A JDBC store on the application's DataSource (table {@code idem.jdbc.table}), written in
       * the listener's transaction whatever {@code idem.store} says: the inbox, for effects in the
       * same database.
       */
      JDBC
    }

    /** Where this broker's listeners keep their records. */
    private Store store = Store.DEFAULT;

    /** Whether this broker's {@code @IdempotentListener} methods are advised. */
    private boolean enabled = true;

    /**
     * How long a processed message id is remembered, unless {@code idem.policies.<group>.retention}
     * says otherwise; longer than the broker may redeliver a message.
     */
    private Duration retention = Duration.ofDays(7);

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public Store getStore() {
      return store;
    }

    public void setStore(Store store) {
      this.store = store;
    }

    public Duration getRetention() {
      return retention;
    }

    public void setRetention(Duration retention) {
      this.retention = retention;
    }
  }
}
