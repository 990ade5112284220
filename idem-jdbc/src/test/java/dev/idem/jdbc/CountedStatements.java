package dev.idem.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * A DataSource whose connections count the statements they prepare, so that a test can tell how
 * many statements a call sends (each prepared statement here is executed once).
 */
final class CountedStatements {

  private final AtomicInteger prepared = new AtomicInteger();
  private final DataSource dataSource;
  private volatile String failing = "\u0000";

  CountedStatements(DataSource target) {
    this.dataSource = proxy(DataSource.class, target, this::connection);
  }

  /** The next statement prepared whose SQL starts with {@code prefix} fails instead. */
  void failNext(String prefix) {
    failing = prefix;
  }

  DataSource dataSource() {
    return dataSource;
  }

  /** Statements prepared since the last call. */
  int take() {
    return prepared.getAndSet(0);
  }

  private Object connection(Method method, Object result) {
    if (!(result instanceof Connection c)) {
      return result;
    }
    return proxy(
        Connection.class,
        c,
        (m, r) -> {
          if (m.getName().equals("prepareStatement")) {
            prepared.incrementAndGet();
          }
          return r;
        },
        (m, args) -> {
          if (m.getName().equals("prepareStatement")
              && args != null
              && args[0] instanceof String sql
              && sql.startsWith(failing)) {
            failing = "\u0000";
            throw new SQLException("injected: " + sql);
          }
        });
  }

  private interface After {
    Object apply(Method method, Object result);
  }

  private interface Before {
    void check(Method method, Object @Nullable [] args) throws SQLException;
  }

  private static <T> T proxy(Class<T> type, T target, After after) {
    return proxy(type, target, after, (method, args) -> {});
  }

  private static <T> T proxy(Class<T> type, T target, After after, Before before) {
    return type.cast(
        Proxy.newProxyInstance(
            type.getClassLoader(),
            new Class<?>[] {type},
            (p, method, args) -> {
              before.check(method, args);
              try {
                return after.apply(method, method.invoke(target, args));
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            }));
  }
}
