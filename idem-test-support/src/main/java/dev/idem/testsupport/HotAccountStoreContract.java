package dev.idem.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.hot.Deduction;
import dev.idem.core.hot.DeductionResult;
import dev.idem.core.hot.HotAccountConfig;
import dev.idem.core.hot.HotAccountExecutor;
import dev.idem.core.hot.HotAccountStore;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The rules of {@link HotAccountStore} on a backend: a batch answered in order, request ids
 * recorded once, and many payers on one account through two executors (as two processes would be)
 * without a lost, doubled or wrongly refused deduction. A backend supplies the store and ways to
 * open an account and read its balance and ledger; account ids are strings.
 */
public abstract class HotAccountStoreContract {

  /** The store under test. */
  protected abstract HotAccountStore<String> store();

  /** Creates {@code account} with {@code balance}. */
  protected abstract void open(String account, BigDecimal balance);

  /** The account's balance as the backend holds it. */
  protected abstract BigDecimal balance(String account);

  /** The number and the total of the deductions recorded for the account. */
  protected abstract Ledger ledger(String account);

  /** How many payers race on one account. */
  protected int payers() {
    return 32;
  }

  /** What the backend recorded for an account. */
  public record Ledger(int rows, BigDecimal total) {}

  private static final int EACH = 10;

  private String newAccount(BigDecimal balance) {
    String account = "hot-" + UUID.randomUUID().toString().substring(0, 8);
    open(account, balance);
    return account;
  }

  @Test
  void answersEachDeductionOfABatchInOrder() {
    String a = newAccount(new BigDecimal("10.00"));
    List<DeductionResult> results =
        store()
            .apply(
                a,
                List.of(
                    new Deduction(a + "-1", new BigDecimal("3.00")),
                    new Deduction(a + "-2", new BigDecimal("5.00")),
                    new Deduction(a + "-1", new BigDecimal("3.00")),
                    new Deduction(a + "-3", new BigDecimal("4.00")),
                    new Deduction(a + "-4", new BigDecimal("2.00"))));

    assertThat(results)
        .containsExactly(
            DeductionResult.APPLIED,
            DeductionResult.APPLIED,
            DeductionResult.DUPLICATE,
            DeductionResult.INSUFFICIENT_FUNDS,
            DeductionResult.APPLIED);
    assertThat(balance(a)).isEqualByComparingTo("0");
    assertThat(ledger(a)).isEqualTo(new Ledger(3, ledger(a).total()));
    assertThat(ledger(a).total()).isEqualByComparingTo("10");
  }

  @Test
  void aRequestIdAppliedBeforeIsADuplicateAndNotDebitedAgain() {
    String a = newAccount(new BigDecimal("10.00"));
    store().apply(a, List.of(new Deduction(a + "-1", BigDecimal.ONE)));

    assertThat(
            store()
                .apply(
                    a,
                    List.of(
                        new Deduction(a + "-1", BigDecimal.ONE),
                        new Deduction(a + "-2", BigDecimal.ONE))))
        .containsExactly(DeductionResult.DUPLICATE, DeductionResult.APPLIED);
    assertThat(balance(a)).isEqualByComparingTo("8");
    assertThat(ledger(a).rows()).isEqualTo(2);
  }

  @Test
  void anUnknownAccountIsNeitherDebitedNorRecorded() {
    String nobody = "hot-none-" + UUID.randomUUID().toString().substring(0, 8);
    assertThat(store().apply(nobody, List.of(new Deduction(nobody + "-1", BigDecimal.ONE))))
        .containsExactly(DeductionResult.UNKNOWN_ACCOUNT);
    assertThat(ledger(nobody).rows()).isZero();
  }

  @Test
  void payersThroughTwoExecutorsAreEachDebitedOnceAndNeverRefusedWhileFundsLast() throws Exception {
    int unique = payers() * EACH;
    String a = newAccount(new BigDecimal(unique + 5));
    // Each payer pays its own orders and repeats its neighbour's, so every order arrives twice,
    // usually through both executors at about the same time.
    Map<DeductionResult, Integer> results =
        race(
            a,
            (t, i) ->
                i % 2 == 0 ? a + "-" + t + "-" + i / 2 : a + "-" + (t + 1) % payers() + "-" + i / 2,
            2 * EACH);

    assertThat(results)
        .containsEntry(DeductionResult.APPLIED, unique)
        .containsEntry(DeductionResult.DUPLICATE, unique)
        .doesNotContainKey(DeductionResult.INSUFFICIENT_FUNDS);
    assertThat(balance(a)).isEqualByComparingTo("5");
    assertThat(ledger(a).rows()).isEqualTo(unique);
    assertThat(ledger(a).total()).isEqualByComparingTo(new BigDecimal(unique));
  }

  @Test
  void payersAreRefusedExactlyWhenTheFundsRunOut() throws Exception {
    int funds = payers() * EACH / 2;
    String a = newAccount(new BigDecimal(funds));

    Map<DeductionResult, Integer> results = race(a, (t, i) -> a + "-" + t + "-" + i, EACH);

    assertThat(results)
        .containsEntry(DeductionResult.APPLIED, funds)
        .containsEntry(DeductionResult.INSUFFICIENT_FUNDS, payers() * EACH - funds);
    assertThat(balance(a)).isEqualByComparingTo("0");
    assertThat(ledger(a).total()).isEqualByComparingTo(new BigDecimal(funds));
  }

  interface RequestIds {
    String of(int payer, int deduction);
  }

  // Half the payers go through one executor, half through another, as if in two processes.
  private Map<DeductionResult, Integer> race(String account, RequestIds ids, int each)
      throws Exception {
    List<HotAccountExecutor<String>> executors =
        List.of(
            new HotAccountExecutor<>(store(), HotAccountConfig.ofDefaults()),
            new HotAccountExecutor<>(store(), HotAccountConfig.ofDefaults()));
    ExecutorService pool = Executors.newFixedThreadPool(payers());
    CountDownLatch go = new CountDownLatch(1);
    try {
      List<Future<List<DeductionResult>>> running = new ArrayList<>();
      for (int t = 0; t < payers(); t++) {
        int payer = t;
        HotAccountExecutor<String> executor = executors.get(t % 2);
        running.add(
            pool.submit(
                () -> {
                  go.await();
                  List<DeductionResult> mine = new ArrayList<>();
                  for (int i = 0; i < each; i++) {
                    mine.add(executor.deduct(account, ids.of(payer, i), BigDecimal.ONE));
                  }
                  return mine;
                }));
      }
      go.countDown();
      Map<DeductionResult, Integer> counts = new EnumMap<>(DeductionResult.class);
      for (Future<List<DeductionResult>> f : running) {
        f.get(120, TimeUnit.SECONDS).forEach(r -> counts.merge(r, 1, Integer::sum));
      }
      return counts;
    } finally {
      pool.shutdownNow();
    }
  }
}
