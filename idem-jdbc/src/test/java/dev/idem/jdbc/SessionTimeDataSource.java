package dev.idem.jdbc;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.time.Instant;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * MySQL and MariaDB connections whose session has a given time zone and a stopped clock ({@code SET
 * timestamp}), which a test moves with {@link #setTime}. Each connection is opened afresh and
 * closed for good, so the session settings never reach a pool other tests share.
 */
final class SessionTimeDataSource implements DataSource {

  private final String url;
  private final String timeZone;
  private volatile Instant time;

  /**
   * @param timeZone a zone name or offset the server knows, spliced into {@code SET time_zone}
   */
  SessionTimeDataSource(String url, String timeZone, Instant time) {
    this.url = url;
    this.timeZone = timeZone;
    this.time = time;
  }

  /** The time the sessions of connections handed out from now on are stopped at. */
  void setTime(Instant time) {
    this.time = time;
  }

  @Override
  public Connection getConnection() throws SQLException {
    return withSessionTime(DriverManager.getConnection(url));
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    return withSessionTime(DriverManager.getConnection(url, username, password));
  }

  private Connection withSessionTime(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(
          "SET time_zone = '"
              + timeZone
              + "', timestamp = "
              + time.getEpochSecond()
              + "."
              + String.format("%06d", time.getNano() / 1000));
    } catch (SQLException e) {
      c.close();
      throw e;
    }
    return c;
  }

  @Override
  public PrintWriter getLogWriter() {
    return null;
  }

  @Override
  public void setLogWriter(PrintWriter out) {}

  @Override
  public void setLoginTimeout(int seconds) {}

  @Override
  public int getLoginTimeout() {
    return 0;
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    throw new SQLFeatureNotSupportedException();
  }

  @Override
  public <T> T unwrap(Class<T> type) throws SQLException {
    throw new SQLException("not a wrapper");
  }

  @Override
  public boolean isWrapperFor(Class<?> type) {
    return false;
  }
}
