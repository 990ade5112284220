package dev.idem.jdbc;

import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.state.StateStore;
import dev.idem.jdbc.internal.Jdbc;
import dev.idem.jdbc.internal.Params;
import dev.idem.jdbc.internal.SqlIdentifiers;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * The status column of an application's own table as a {@link StateStore}, for a {@link
 * dev.idem.core.state.StateMachine}. Statuses are stored as the enum constants' names; ids are
 * strings. A transition is the one guarded statement
 *
 * <pre>{@code
 * UPDATE <table> SET <status> = ? WHERE <id> = ? AND <status> = ?
 * }</pre>
 *
 * <p>which the database applies atomically: of any number of concurrent callers, one sees a row
 * change. The id column must be unique (normally the primary key). The store never creates a table
 * or a row. Table and column names are validated identifiers; every value is a bound parameter.
 * Portable SQL, so no dialect is needed. Thread-safe.
 *
 * @param <S> the status enum
 */
public final class JdbcStateStore<S extends Enum<S>> implements StateStore<String, S> {

  private final Jdbc jdbc;
  private final Class<S> type;
  private final String select;
  private final String update;

  private JdbcStateStore(Builder<S> b) {
    this.jdbc = new Jdbc(b.dataSource, b.transactions, JdbcStoreConfig.DEFAULT_CALL_TIMEOUT);
    this.type = b.type;
    this.select = "SELECT " + b.status + " FROM " + b.table + " WHERE " + b.id + " = ?";
    this.update =
        "UPDATE "
            + b.table
            + " SET "
            + b.status
            + " = ? WHERE "
            + b.id
            + " = ? AND "
            + b.status
            + " = ?";
  }

  /** A builder for a store of {@code type} statuses on {@code dataSource}. */
  public static <S extends Enum<S>> Builder<S> builder(DataSource dataSource, Class<S> type) {
    return new Builder<>(dataSource, type);
  }

  /**
   * {@inheritDoc}
   *
   * @throws IdempotencyStoreException if the database cannot be reached
   * @throws IllegalStateException if the stored status is not a constant of the enum
   */
  @Override
  public Optional<S> find(String id) {
    Objects.requireNonNull(id, "id");
    @Nullable String found =
        jdbc.<@Nullable String>run(
            "find",
            c -> {
              try (PreparedStatement ps = c.prepareStatement(select)) {
                ps.setString(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                  return rs.next() ? rs.getString(1) : null;
                }
              }
            });
    if (found == null) {
      return Optional.empty();
    }
    try {
      // CHAR columns come back padded.
      return Optional.of(Enum.valueOf(type, found.trim()));
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(
          "record " + id + " has status '" + found + "', not a " + type.getSimpleName(), e);
    }
  }

  /**
   * {@inheritDoc}
   *
   * @throws IdempotencyStoreException if the database cannot be reached
   */
  @Override
  public boolean compareAndSet(String id, S from, S to) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(to, "to");
    return jdbc.run("compareAndSet", c -> Params.update(c, update, to.name(), id, from.name()))
        == 1;
  }

  /**
   * Names the table and columns of a {@link JdbcStateStore}; checked in {@link #build()}.
   *
   * @param <S> the status enum
   */
  public static final class Builder<S extends Enum<S>> {
    private final DataSource dataSource;
    private final Class<S> type;
    private String table;
    private String id = "id";
    private String status = "status";
    private @Nullable TransactionConnection transactions;

    @SuppressWarnings("NullAway.Init") // build() checks that the table was named
    private Builder(DataSource dataSource, Class<S> type) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
      this.type = Objects.requireNonNull(type, "type");
    }

    /** The table holding the records; required, optionally {@code schema.table}. */
    public Builder<S> table(String table) {
      this.table = table;
      return this;
    }

    /** The unique id column; {@code id} by default. */
    public Builder<S> idColumn(String column) {
      this.id = column;
      return this;
    }

    /** The status column, holding enum constant names; {@code status} by default. */
    public Builder<S> statusColumn(String column) {
      this.status = column;
      return this;
    }

    /**
     * Writes transitions in the transaction active on the calling thread, when there is one, so
     * that a status change commits with the business writes it belongs to.
     */
    public Builder<S> joinTransactions(TransactionConnection transactions) {
      this.transactions = Objects.requireNonNull(transactions, "transactions");
      return this;
    }

    /**
     * @throws IllegalArgumentException when a name is missing or not a plain SQL identifier
     */
    public JdbcStateStore<S> build() {
      SqlIdentifiers.table(table);
      SqlIdentifiers.column(id);
      SqlIdentifiers.column(status);
      return new JdbcStateStore<>(this);
    }
  }
}
