package dev.idem.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * A DataSource whose connections count the statements they prepare, so that a test can tell how
 * many statements a call sends (each prepared statement here is executed once).
 */
final class CountedStatements {

  private final AtomicInteger prepared = new AtomicInteger();
  private final DataSource dataSource;

  CountedStatements(DataSource target) {
    this.dataSource = proxy(DataSource.class, target, this::connection);
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
        });
  }

  private interface After {
    Object apply(Method method, Object result);
  }

  private static <T> T proxy(Class<T> type, T target, After after) {
    return type.cast(
        Proxy.newProxyInstance(
            type.getClassLoader(),
            new Class<?>[] {type},
            (p, method, args) -> {
              try {
                return after.apply(method, method.invoke(target, args));
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            }));
  }
}
