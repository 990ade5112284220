package dev.idem.spring;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The {@code idem.jdbc.*} properties: the JDBC store's table, when it is created, join mode and the
 * scheduled purge.
 */
public class IdemJdbcProperties {
  /** The records table. */
  private String table = "idem_records";

  /**
   * When Idem creates its table at startup if it is missing: {@code embedded} (the default) only on
   * an in-memory database (H2, HSQLDB, Derby), {@code always}, or {@code never} (your migrations
   * create it: Flyway location {@code classpath:dev/idem/jdbc/flyway/<database>}, or the Liquibase
   * changelog {@code dev/idem/jdbc/liquibase/changelog.xml}, both in idem-jdbc). A table still
   * missing then stops the start.
   */
  private SchemaInitialization initializeSchema = SchemaInitialization.EMBEDDED;

  /** Deprecated: {@code initialize-schema} instead; true is {@code always}, false {@code never}. */
  private @Nullable Boolean createSchema;

  /** Write records in the caller's Spring transaction when one is active (join mode). */
  private boolean joinTransactions = true;

  /**
   * The longest a call of the store on a pooled connection waits for the database, whatever the
   * driver's socket timeout (a claim waits at most half its lease, a renewal half the lease it asks
   * for).
   */
  private Duration callTimeout = Duration.ofSeconds(10);

  /** The scheduled purge of records past their retention. */
  private final Cleanup cleanup = new Cleanup();

  public Duration getCallTimeout() {
    return callTimeout;
  }

  public void setCallTimeout(Duration callTimeout) {
    if (callTimeout == null || callTimeout.isZero() || callTimeout.isNegative()) {
      throw new IllegalArgumentException(
          "idem.jdbc.call-timeout must be above zero, was " + callTimeout);
    }
    this.callTimeout = callTimeout;
  }

  public Cleanup getCleanup() {
    return cleanup;
  }

  public String getTable() {
    return table;
  }

  public void setTable(String table) {
    this.table = table;
  }

  public SchemaInitialization getInitializeSchema() {
    return initializeSchema;
  }

  public void setInitializeSchema(SchemaInitialization initializeSchema) {
    this.initializeSchema = initializeSchema;
  }

  /** What {@code initialize-schema} means once the deprecated {@code create-schema} is applied. */
  public SchemaInitialization schemaInitialization() {
    if (createSchema == null) {
      return initializeSchema;
    }
    return createSchema ? SchemaInitialization.ALWAYS : SchemaInitialization.NEVER;
  }

  /**
   * @deprecated use {@link #getInitializeSchema()}
   */
  @Deprecated
  public @Nullable Boolean getCreateSchema() {
    return createSchema;
  }

  /**
   * @deprecated use {@link #setInitializeSchema}
   */
  @Deprecated
  public void setCreateSchema(@Nullable Boolean createSchema) {
    this.createSchema = createSchema;
  }

  public boolean isJoinTransactions() {
    return joinTransactions;
  }

  public void setJoinTransactions(boolean joinTransactions) {
    this.joinTransactions = joinTransactions;
  }

  /** When the JDBC store creates its table, as {@code spring.session.jdbc.initialize-schema}. */
  public enum SchemaInitialization {
    /** Only on an in-memory database. */
    EMBEDDED,
    /** Whatever the database. */
    ALWAYS,
    /** Never: migrations create it. */
    NEVER
  }

  /** The JDBC store's purge of expired records. */
  public static class Cleanup {
    /** Purge expired records on a schedule. */
    private boolean enabled = true;

    /** Time between two runs. */
    private Duration interval = Duration.ofMinutes(10);

    /** Rows one statement deletes at most, in its own transaction. */
    private int batchSize = 1000;

    /** Batches one run deletes at most. */
    private int maxBatches = 100;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public Duration getInterval() {
      return interval;
    }

    public void setInterval(Duration interval) {
      this.interval = interval;
    }

    public int getBatchSize() {
      return batchSize;
    }

    public void setBatchSize(int batchSize) {
      this.batchSize = batchSize;
    }

    public int getMaxBatches() {
      return maxBatches;
    }

    public void setMaxBatches(int maxBatches) {
      this.maxBatches = maxBatches;
    }
  }
}
