package dev.idem.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.RequestInProgressException;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.spring.ResourcelessTransactions;
import dev.idem.spring.autoconfigure.IdemAopAutoConfiguration;
import dev.idem.spring.autoconfigure.IdemAutoConfiguration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.transaction.TransactionSystemException;
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
  private final TransactionTemplate transactions =
      new TransactionTemplate(new ResourcelessTransactions());

  @Test
  void aRollbackOfTheCallersTransactionLetsARetryOfADeclaredTransactionalMethodRunAgain() {
    runner.run(
        context -> {
          assertThat(context.getBean(IdempotencyStore.class)).isInstanceOf(expectedStore());
          Jobs jobs = context.getBean(Jobs.class);
          transactions.executeWithoutResult(
              status -> {
                jobs.booked(key);
                status.setRollbackOnly();
              });
          List<Jobs.Receipt> retried = transactions.execute(status -> jobs.booked(key));
          assertThat(jobs.runs("booked")).isEqualTo(2);
          assertThat(jobs.booked(key)).isEqualTo(retried);
          assertThat(jobs.runs("booked")).isEqualTo(2);
        });
  }

  @Test
  void aMethodThatDeclaresNoTransactionIsStoredWhenItReturnsAndARolledBackCallerReplaysIt() {
    // a card charge called from a checkout that fails after it: the charge happened, whatever
    // becomes of the checkout's transaction, so a retried checkout must not charge again
    runner.run(
        context -> {
          Jobs jobs = context.getBean(Jobs.class);
          for (int attempt = 0; attempt < 3; attempt++) {
            assertThatThrownBy(
                    () ->
                        transactions.executeWithoutResult(
                            status -> {
                              jobs.receipts(key);
                              throw new IllegalStateException("the checkout failed after it");
                            }))
                .isInstanceOf(IllegalStateException.class);
          }
          assertThat(jobs.runs("receipts")).isEqualTo(1);
        });
  }

  @Test
  @ExtendWith(OutputCaptureExtension.class)
  void aMethodCalledInATransactionItDoesNotDeclareIsLoggedOnceAtWarn(CapturedOutput output) {
    runner.run(
        context -> {
          Jobs jobs = context.getBean(Jobs.class);
          transactions.executeWithoutResult(status -> jobs.receipts(key));
          transactions.executeWithoutResult(status -> jobs.receipts(key + "-2"));
          String warning = "Jobs.receipts runs inside a transaction it does not declare";
          assertThat(output.getAll().split(warning, -1)).hasSize(2);
          assertThat(output.getAll()).doesNotContain("Jobs.booked runs inside");
          transactions.executeWithoutResult(status -> jobs.booked(key));
          assertThat(output.getAll()).doesNotContain("Jobs.booked runs inside");
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
                    List<Jobs.Receipt> receipts = jobs.booked(key);
                    assertThatThrownBy(() -> jobs.booked(key))
                        .isInstanceOf(RequestInProgressException.class);
                    return receipts;
                  });
          assertThat(jobs.booked(key)).isEqualTo(first);
          assertThat(jobs.runs("booked")).isEqualTo(1);
        });
  }

  @Test
  void aCommitWhoseOutcomeIsUnknownKeepsTheKeyInsteadOfFreeingIt() {
    // the commit's reply was lost: the effects may be durable, so a retry must not run at once
    TransactionTemplate lostReply = new TransactionTemplate(new ResourcelessTransactions(true));
    runner.run(
        context -> {
          Jobs jobs = context.getBean(Jobs.class);
          assertThatThrownBy(() -> lostReply.execute(status -> jobs.booked(key)))
              .isInstanceOf(TransactionSystemException.class);
          assertThatThrownBy(() -> jobs.booked(key)).isInstanceOf(RequestInProgressException.class);
          assertThat(jobs.runs("booked")).isEqualTo(1);
        });
  }
}
