package dev.idem.jdbc.internal;

import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Checks the names that Idem splices into SQL text: tables and columns. Everything else is bound as
 * a parameter, so these checks are what keeps configuration from ever becoming SQL.
 */
public final class SqlIdentifiers {

  private static final String PART = "[A-Za-z_][A-Za-z0-9_]{0,62}";
  private static final Pattern COLUMN = Pattern.compile(PART);
  private static final Pattern TABLE = Pattern.compile(PART + "(\\." + PART + ")?");

  private SqlIdentifiers() {}

  /**
   * Returns {@code table} if it is a plain or schema-qualified identifier.
   *
   * @throws IllegalArgumentException otherwise
   */
  public static String table(@Nullable String table) {
    if (table == null || !TABLE.matcher(table).matches()) {
      throw new IllegalArgumentException(
          "table name must be an SQL identifier (letters, digits, '_', optionally schema.table),"
              + " was '"
              + table
              + "'");
    }
    return table;
  }

  /**
   * Returns {@code column} if it is a plain identifier.
   *
   * @throws IllegalArgumentException otherwise
   */
  public static String column(@Nullable String column) {
    if (column == null || !COLUMN.matcher(column).matches()) {
      throw new IllegalArgumentException(
          "column name must be an SQL identifier (letters, digits, '_'), was '" + column + "'");
    }
    return column;
  }
}
