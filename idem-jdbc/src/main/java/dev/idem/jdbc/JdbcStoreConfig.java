package dev.idem.jdbc;

import dev.idem.jdbc.internal.SqlIdentifiers;
import java.util.Objects;

/**
 * Where and how the JDBC store keeps its records. Immutable; {@link #custom(JdbcDialect)} builds
 * one, validated in {@code build()}.
 */
public final class JdbcStoreConfig {

  /** The default table name. */
  public static final String DEFAULT_TABLE = "idem_records";

  private final JdbcDialect dialect;
  private final String table;
  private final boolean sharedBetweenProcesses;

  private JdbcStoreConfig(Builder b) {
    this.dialect = b.dialect;
    this.table = b.table;
    this.sharedBetweenProcesses = b.sharedBetweenProcesses;
  }

  /** The defaults for {@code dialect}: table {@value #DEFAULT_TABLE}, shared between processes. */
  public static JdbcStoreConfig of(JdbcDialect dialect) {
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

  /** The records table, possibly schema-qualified. */
  public String table() {
    return table;
  }

  /**
   * True when other processes can reach the same table (a server database, or an H2 file or
   * server); false for a private in-memory database.
   */
  public boolean sharedBetweenProcesses() {
    return sharedBetweenProcesses;
  }

  /** Checks and builds a {@link JdbcStoreConfig}. */
  public static final class Builder {
    private final JdbcDialect dialect;
    private String table = DEFAULT_TABLE;
    private boolean sharedBetweenProcesses = true;

    private Builder(JdbcDialect dialect) {
      this.dialect = Objects.requireNonNull(dialect, "dialect");
    }

    /** The records table: letters, digits and underscores, optionally {@code schema.table}. */
    public Builder table(String table) {
      this.table = table;
      return this;
    }

    /** Whether other processes share the table; true by default. */
    public Builder sharedBetweenProcesses(boolean shared) {
      this.sharedBetweenProcesses = shared;
      return this;
    }

    /**
     * @throws IllegalArgumentException when the table name is not a plain SQL identifier
     */
    public JdbcStoreConfig build() {
      SqlIdentifiers.table(table);
      return new JdbcStoreConfig(this);
    }
  }
}
