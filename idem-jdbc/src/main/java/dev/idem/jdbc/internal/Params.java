package dev.idem.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** Runs a statement with its values bound as parameters, in order. */
public final class Params {

  private Params() {}

  /** Executes an update and returns its update count. */
  public static int update(Connection c, String sql, Object... params) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      bind(ps, params);
      return ps.executeUpdate();
    }
  }

  /** Returns whether a query finds at least one row. */
  public static boolean exists(Connection c, String sql, Object... params) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      bind(ps, params);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  /** Binds strings, longs, ints and byte arrays; anything else is a programming error. */
  public static void bind(PreparedStatement ps, Object... params) throws SQLException {
    for (int i = 0; i < params.length; i++) {
      Object p = params[i];
      if (p instanceof byte[] bytes) {
        ps.setBytes(i + 1, bytes);
      } else if (p instanceof Long n) {
        ps.setLong(i + 1, n);
      } else if (p instanceof Integer n) {
        ps.setInt(i + 1, n);
      } else if (p instanceof String s) {
        ps.setString(i + 1, s);
      } else {
        throw new IllegalArgumentException("cannot bind " + p);
      }
    }
  }
}
