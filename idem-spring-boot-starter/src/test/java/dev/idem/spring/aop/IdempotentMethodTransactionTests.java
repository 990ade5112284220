package dev.idem.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.IdempotencyStore;
import dev.idem.core.RequestInProgressException;
import dev.idem.spring.autoconfigure.IdemAopAutoConfiguration;
import dev.idem.spring.autoconfigure.IdemAutoConfiguration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * With a store that does not join the caller's transaction (each subclass names one), an
 * {@code @Idempotent} method's outcome is stored only when that transaction commits; a rollback
 * frees the key so that a retry runs again.
 */
abstract class IdempotentMethodTransactionTests {

  private final ApplicationContextRunner runner =
      configure(
          new ApplicationContextRunner()
              .withConfiguration(
                  AutoConfigurations.of(
                      IdemAutoConfiguration.class, IdemAopAutoConfiguration.class))
              .withBean(Jobs.class));

  /** Adds the store under test to the context. */
  abstract ApplicationContextRunner configure(ApplicationContextRunner runner);

  /** The store class the context is expected to pick. */
  abstract Class<? extends IdempotencyStore> expectedStore();

  private final String key = UUID.randomUUID().toString();
  private final TransactionTemplate transactions = new TransactionTemplate(new ResourceLess());

  @Test
  void aRollbackOfTheCallersTransactionLetsARetryRunAgain() {
    runner.run(
        context -> {
          assertThat(context.getBean(IdempotencyStore.class)).isInstanceOf(expectedStore());
          Jobs jobs = context.getBean(Jobs.class);
          transactions.executeWithoutResult(
              status -> {
                jobs.receipts(key);
                status.setRollbackOnly();
              });
          List<Jobs.Receipt> retried = transactions.execute(status -> jobs.receipts(key));
          assertThat(jobs.runs("receipts")).isEqualTo(2);
          assertThat(jobs.receipts(key)).isEqualTo(retried);
          assertThat(jobs.runs("receipts")).isEqualTo(2);
        });
  }

  @Test
  void aDuplicateBeforeTheCommitFindsTheKeyInProgressAndOneAfterItReplays() {
    runner.run(
        context -> {
          Jobs jobs = context.getBean(Jobs.class);
          List<Jobs.Receipt> first =
              transactions.execute(
                  status -> {
                    List<Jobs.Receipt> receipts = jobs.receipts(key);
                    assertThatThrownBy(() -> jobs.receipts(key))
                        .isInstanceOf(RequestInProgressException.class);
                    return receipts;
                  });
          assertThat(jobs.receipts(key)).isEqualTo(first);
          assertThat(jobs.runs("receipts")).isEqualTo(1);
        });
  }

  /** A transaction manager without a resource: it only drives the synchronizations. */
  private static final class ResourceLess extends AbstractPlatformTransactionManager {
    private static final long serialVersionUID = 1L;

    @Override
    protected Object doGetTransaction() {
      return new Object();
    }

    @Override
    protected void doBegin(
        Object transaction, org.springframework.transaction.TransactionDefinition definition) {}

    @Override
    protected void doCommit(DefaultTransactionStatus status) {}

    @Override
    protected void doRollback(DefaultTransactionStatus status) {}
  }
}
