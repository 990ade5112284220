package dev.idem.shop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.hot.DeductionFailedException;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.transaction.TransactionSystemException;

/**
 * Failures of Idem's JDBC helpers inside a handler, and a rollback on a connection cut mid-request,
 * are answered like Spring's own data-access failures: 503 database-unavailable with Retry-After,
 * never a bare 500. {@code DatabaseLossServicesIT} shows the Spring ones over HTTP.
 */
class ProblemHandlerTest {

  @Test
  void idemHelperFailuresAreA503WithRetryAfter() {
    SQLException cut = new SQLException("An I/O error occurred", "08006");
    for (RuntimeException e :
        List.of(
            new IdempotencyStoreException("transition failed", cut),
            new DeductionFailedException("ORD-1", new IdempotencyStoreException("apply", cut)),
            new TransactionSystemException("JDBC rollback failed", cut))) {
      ResponseEntity<ProblemDetail> answer = new ProblemHandler().databaseUnavailable(e);

      assertThat(answer.getStatusCode().value()).isEqualTo(503);
      assertThat(answer.getHeaders().getFirst("Retry-After")).isEqualTo("1");
      assertThat(answer.getBody().getType().toString())
          .isEqualTo("urn:shop:problem:database-unavailable");
    }
  }
}
