package dev.idem.jdbc;

import dev.idem.jdbc.internal.SqlIdentifiers;
import java.time.Duration;
import java.util.Objects;

/**
 * Where and how {@link JdbcLockProvider} keeps its locks. Immutable; {@link #custom(JdbcDialect)}
 * builds one, validated in {@code build()}.
 */
public final class JdbcLockConfig {

  /** The default table name. */
  public static final String DEFAULT_TABLE = "idem_locks";

  /** How long the row of a lock nobody uses is kept, by default. */
  public static final Duration DEFAULT_FENCE_RETENTION = Duration.ofDays(7);

  private final JdbcDialect dialect;
  private final String table;
  private final Duration fenceRetention;

  private JdbcLockConfig(Builder b) {
    this.dialect = b.dialect;
    this.table = b.table;
    this.fenceRetention = b.fenceRetention;
  }

  /** The defaults for {@code dialect}: table {@value #DEFAULT_TABLE}, fences kept for 7 days. */
  public static JdbcLockConfig of(JdbcDialect dialect) {
    return custom(dialect).build();
  }

  /** A builder for {@code dialect}. */
  public static Builder custom(JdbcDialect dialect) {
    return new Builder(dialect);
  }

  /** The database's dialect. */
  public JdbcDialect dialect() {
    return dialect;
  }

  /** The locks table, possibly schema-qualified. */
  public String table() {
    return table;
  }

  /**
   * How long a lock's row, and with it the lock's fence counter, is kept after its last lease ended
   * or it was released; after that {@link JdbcLockProvider#purgeIdle(int)} may delete it.
   */
  public Duration fenceRetention() {
    return fenceRetention;
  }

  /** Checks and builds a {@link JdbcLockConfig}. */
  public static final class Builder {
    private final JdbcDialect dialect;
    private String table = DEFAULT_TABLE;
    private Duration fenceRetention = DEFAULT_FENCE_RETENTION;

    private Builder(JdbcDialect dialect) {
      this.dialect = Objects.requireNonNull(dialect, "dialect");
    }

    /** The locks table: letters, digits and underscores, optionally {@code schema.table}. */
    public Builder table(String table) {
      this.table = table;
      return this;
    }

    /** How long an idle lock's row is kept; positive, 7 days by default. */
    public Builder fenceRetention(Duration retention) {
      this.fenceRetention = Objects.requireNonNull(retention, "fenceRetention");
      return this;
    }

    /**
     * @throws IllegalArgumentException when the table name is not a plain SQL identifier or the
     *     retention is not positive
     */
    public JdbcLockConfig build() {
      SqlIdentifiers.table(table);
      if (fenceRetention.isNegative() || fenceRetention.isZero()) {
        throw new IllegalArgumentException(
            "fenceRetention must be positive, was " + fenceRetention);
      }
      return new JdbcLockConfig(this);
    }
  }
}
