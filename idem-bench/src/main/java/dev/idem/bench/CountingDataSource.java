package dev.idem.bench;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A DataSource that counts what its callers do with the database: connections borrowed, statements
 * executed (and how many of those ran in auto-commit mode, each its own transaction), and explicit
 * {@code commit()} and {@code rollback()} calls. Counting what goes over the pool, rather than
 * trusting the code that calls it, is the evidence that join mode adds no commit of its own.
 */
final class CountingDataSource implements DataSource {

  private static final Set<String> EXECUTE =
      Set.of(
          "execute",
          "executeQuery",
          "executeUpdate",
          "executeLargeUpdate",
          "executeBatch",
          "executeLargeBatch");

  /**
   * Totals since the counter was created; subtract two snapshots to count a stretch of work.
   *
   * @param connections connections borrowed from the pool
   * @param statements statements executed, a batch counting once
   * @param autoCommitStatements statements executed on a connection in auto-commit mode
   * @param commits explicit {@code commit()} calls
   * @param rollbacks explicit {@code rollback()} calls
   */
  record Counts(
      long connections, long statements, long autoCommitStatements, long commits, long rollbacks) {

    /** What happened between {@code earlier} and this snapshot. */
    Counts minus(Counts earlier) {
      return new Counts(
          connections - earlier.connections,
          statements - earlier.statements,
          autoCommitStatements - earlier.autoCommitStatements,
          commits - earlier.commits,
          rollbacks - earlier.rollbacks);
    }
  }

  private final DataSource delegate;
  private final LongAdder connections = new LongAdder();
  private final LongAdder statements = new LongAdder();
  private final LongAdder autoCommitStatements = new LongAdder();
  private final LongAdder commits = new LongAdder();
  private final LongAdder rollbacks = new LongAdder();

  CountingDataSource(DataSource delegate) {
    this.delegate = delegate;
  }

  /** The totals so far. */
  Counts snapshot() {
    return new Counts(
        connections.sum(),
        statements.sum(),
        autoCommitStatements.sum(),
        commits.sum(),
        rollbacks.sum());
  }

  @Override
  public Connection getConnection() throws SQLException {
    return counted(delegate.getConnection());
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    return counted(delegate.getConnection(username, password));
  }

  private Connection counted(Connection connection) {
    connections.increment();
    InvocationHandler handler =
        (proxy, method, args) -> {
          switch (method.getName()) {
            case "commit" -> commits.increment();
            case "rollback" -> rollbacks.increment();
            default -> {}
          }
          Object result = invoke(connection, method, args);
          return result instanceof Statement statement
              ? counted(connection, statement, method.getReturnType())
              : result;
        };
    return (Connection) proxy(Connection.class, handler);
  }

  private Object counted(Connection connection, Statement statement, Class<?> type) {
    InvocationHandler handler =
        (proxy, method, args) -> {
          if (EXECUTE.contains(method.getName())) {
            statements.increment();
            if (connection.getAutoCommit()) {
              autoCommitStatements.increment();
            }
          }
          return invoke(statement, method, args);
        };
    return proxy(type, handler);
  }

  private static Object proxy(Class<?> type, InvocationHandler handler) {
    return Proxy.newProxyInstance(
        CountingDataSource.class.getClassLoader(), new Class<?>[] {type}, handler);
  }

  private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  @Override
  public PrintWriter getLogWriter() throws SQLException {
    return delegate.getLogWriter();
  }

  @Override
  public void setLogWriter(PrintWriter out) throws SQLException {
    delegate.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    delegate.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return delegate.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    return delegate.getParentLogger();
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    return delegate.unwrap(iface);
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) throws SQLException {
    return delegate.isWrapperFor(iface);
  }
}
