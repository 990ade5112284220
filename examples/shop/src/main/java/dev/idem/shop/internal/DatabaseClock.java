package dev.idem.shop.internal;

import dev.idem.jdbc.JdbcDialect;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.springframework.stereotype.Component;

/**
 * Times in SQL, from the database's clock: the shop writes its timestamps with {@link #NOW} and
 * compares them with {@link #ago}, so the JVM's clock and time zone never meet the database's.
 */
@Component
public class DatabaseClock {

  /** The database's current time, in the session's time zone; H2, PostgreSQL and MariaDB. */
  public static final String NOW = "LOCALTIMESTAMP";

  private final String dialect;

  DatabaseClock(DataSource dataSource) throws SQLException {
    this.dialect = JdbcDialect.detect(dataSource).name();
  }

  /** An SQL expression for {@link #NOW} minus {@code age} (whole milliseconds). */
  public String ago(Duration age) {
    long millis = age.toMillis();
    return switch (dialect) {
      case "postgresql" -> "(" + NOW + " - INTERVAL '" + millis + " milliseconds')";
      case "mysql", "mariadb" -> "(" + NOW + " - INTERVAL " + millis * 1000 + " MICROSECOND)";
      default -> "DATEADD(MILLISECOND, " + -millis + ", " + NOW + ")";
    };
  }
}
