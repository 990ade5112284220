package dev.idem.jdbc;

import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyKey;
import java.util.concurrent.CountDownLatch;
import javax.sql.DataSource;

/**
 * The child side of the join-mode crash test: in one transaction it claims a key and inserts a
 * business row, prints {@code inserted}, then hangs until it is killed.
 *
 * <p>Arguments: JDBC URL, dialect name, key scope, key value.
 */
public final class JoinModeChild {

  private JoinModeChild() {}

  public static void main(String[] args) throws Exception {
    JdbcDialect dialect =
        switch (args[1]) {
          case "postgresql" -> JdbcDialect.postgresql();
          case "mariadb" -> JdbcDialect.mariadb();
          default -> JdbcDialect.mysql();
        };
    DataSource ds = Databases.pool(args[0]);
    JdbcTransactions tx = new JdbcTransactions(ds);
    JdbcIdempotencyStore store =
        new JdbcIdempotencyStore(ds, JdbcStoreConfig.custom(dialect).joinTransactions(tx).build());
    Idempotency engine = Idempotency.builder(store).build();
    IdempotencyKey key = IdempotencyKey.of(args[2], args[3]);
    tx.inTransaction(
        c ->
            engine
                .call(key, Fingerprint.NONE)
                .run(
                    ctx -> {
                      JoinModeTests.insertOrder(c, key, "child");
                      System.out.println("inserted");
                      System.out.flush();
                      new CountDownLatch(1).await();
                      return "never";
                    }));
  }
}
