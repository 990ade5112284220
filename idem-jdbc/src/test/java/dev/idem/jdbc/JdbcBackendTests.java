package dev.idem.jdbc;

import static dev.idem.testsupport.Stages.now;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.idem.core.lock.LockProvider;
import dev.idem.core.resume.ResumeLog;
import dev.idem.core.state.StateStore;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.ForwardingIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import dev.idem.testsupport.AsyncEngineContract;
import dev.idem.testsupport.BatchContract;
import dev.idem.testsupport.CompleterContract;
import dev.idem.testsupport.EngineContract;
import dev.idem.testsupport.IdempotencyStoreContract;
import dev.idem.testsupport.LockProviderContract;
import dev.idem.testsupport.OutcomeContract;
import dev.idem.testsupport.ReplayCacheContract;
import dev.idem.testsupport.ResumeLogContract;
import dev.idem.testsupport.Stages;
import dev.idem.testsupport.StateStoreContract;
import dev.idem.testsupport.StepContract;
import dev.idem.testsupport.TokenContract;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Everything idem-jdbc runs on one database, the JDBC backend matrix declared once: the shared
 * store, token, engine and outcome contracts in plain mode, the store and token contracts again in
 * join mode, the join-mode tests, the lock and state store contracts, the hot-account tests, the
 * migrations, and the JDBC-specific ones. A database's test class only says which database.
 */
abstract class JdbcBackendTests {

  private static final Map<String, JdbcIdempotencyStore> PLAIN = new ConcurrentHashMap<>();
  private static final Map<String, JdbcLockProvider> LOCKS = new ConcurrentHashMap<>();
  private static final Map<String, JdbcResumeLog> LOGS = new ConcurrentHashMap<>();
  private static final Map<String, JdbcStateStore<StateStoreContract.PaymentStatus>> STATES =
      new ConcurrentHashMap<>();

  /** The JDBC URL of the database. */
  protected abstract String url();

  protected abstract JdbcDialect dialect();

  /**
   * For a database other processes can reach: a factory the crash test's child JVM builds the same
   * store with; null for a database private to this JVM.
   */
  protected abstract Class<? extends Supplier<IdempotencyStore>> crashStoreFactory();

  /** As {@link #crashStoreFactory()}, for the resume log; null skips the completer's crash test. */
  protected @Nullable Class<? extends Supplier<ResumeLog>> crashLogFactory() {
    return null;
  }

  /**
   * Whether the completer suite runs on this database. Its rules are the engine's over the resume
   * log, whose SQL the log's own suite checks on every database: the matrix runs the completer on
   * H2 and PostgreSQL, and leaves it out on the MariaDB variants to keep the build's time.
   */
  protected boolean completerSuite() {
    return true;
  }

  /** Whether the stores run their claims under READ COMMITTED (MySQL and MariaDB only). */
  protected boolean readCommittedClaims() {
    return false;
  }

  private boolean shared() {
    return crashStoreFactory() != null;
  }

  private IdempotencyStore plain() {
    return PLAIN.computeIfAbsent(
        dialect().name() + " " + url(),
        k -> Databases.store(url(), dialect(), shared(), readCommittedClaims()));
  }

  private IdempotencyStore joined() {
    JdbcTransactions tx = new JdbcTransactions(Databases.pool(url()));
    JdbcStoreConfig config =
        JdbcStoreConfig.custom(dialect())
            .joinTransactions(tx)
            .sharedBetweenProcesses(shared())
            .readCommittedClaims(readCommittedClaims())
            .build();
    plain();
    return new TransactionPerCall(new JdbcIdempotencyStore(Databases.pool(url()), config), tx);
  }

  @Nested
  class Store extends IdempotencyStoreContract {
    @Override
    protected IdempotencyStore store() {
      return plain();
    }

    @Override
    protected Class<? extends Supplier<IdempotencyStore>> crashStoreFactory() {
      return JdbcBackendTests.this.crashStoreFactory();
    }
  }

  @Nested
  class ReplayCache extends ReplayCacheContract {
    @Override
    protected IdempotencyStore store() {
      return JdbcBackendTests.this.plain();
    }
  }

  @Nested
  class Batches extends BatchContract {
    @Override
    protected IdempotencyStore store() {
      return plain();
    }

    @Test
    void aBatchWhoseReadFailsLeavesNoRowHeldAndEachKeyIsClaimedAlone() {
      assumeTrue(!dialect().name().equals("h2"), "H2 claims every key alone");
      CountedStatements failing = new CountedStatements(Databases.pool(url()));
      JdbcIdempotencyStore store =
          new JdbcIdempotencyStore(
              failing.dataSource(),
              JdbcStoreConfig.custom(dialect()).readCommittedClaims(readCommittedClaims()).build());
      List<ClaimRequest> batch = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        batch.add(ClaimRequest.of(newKey(), fingerprint("a"), longLease()));
      }
      // the batch's read, after its insert
      failing.failNext("SELECT id, ");

      List<ClaimResult> answers = store.claimAll(batch).stream().map(Stages::now).toList();

      assertThat(answers)
          .as("the insert was taken back with the failed read: no key held by nobody")
          .allMatch(ClaimResult.Claimed.class::isInstance);
    }

    @Test
    void aBatchIsClaimedInOneInsertAndOneReadWhereTheDatabaseCanSkipDuplicates() {
      assumeTrue(!dialect().name().equals("h2"), "H2 inserts no row while skipping duplicates");
      CountedStatements counted = new CountedStatements(Databases.pool(url()));
      JdbcIdempotencyStore store =
          new JdbcIdempotencyStore(
              counted.dataSource(),
              JdbcStoreConfig.custom(dialect()).readCommittedClaims(readCommittedClaims()).build());
      List<ClaimRequest> done = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        ClaimRequest request = ClaimRequest.of(newKey(), fingerprint("a"), longLease());
        Lease lease = ((ClaimResult.Claimed) now(store.claim(request))).lease();
        now(store.complete(lease, Outcome.success(bytes("r")), longLease()));
        done.add(request);
      }
      List<ClaimRequest> batch = new ArrayList<>(done);
      for (int i = 0; i < 300; i++) {
        batch.add(ClaimRequest.of(newKey(), fingerprint("a"), longLease()));
      }
      counted.take();

      List<ClaimResult> answers = store.claimAll(batch).stream().map(Stages::now).toList();

      assertThat(counted.take())
          .as("an insert and a read for each 200 keys, none for a key alone")
          .isEqualTo(4);
      assertThat(answers.subList(0, 5)).allMatch(ClaimResult.Completed.class::isInstance);
      assertThat(answers.subList(5, answers.size()))
          .allMatch(ClaimResult.Claimed.class::isInstance);

      List<IdempotencyStore.Completion> completions =
          answers.subList(5, answers.size()).stream()
              .map(
                  a ->
                      new IdempotencyStore.Completion(
                          ((ClaimResult.Claimed) a).lease(),
                          Outcome.success(bytes("r")),
                          longLease()))
              .toList();
      counted.take();
      assertThat(store.completeAll(completions).stream().map(Stages::now)).containsOnly(true);
      assertThat(counted.take()).as("one batch of statements for every completion").isEqualTo(1);
    }
  }

  @Nested
  class Tokens extends TokenContract {
    @Override
    protected IdempotencyStore store() {
      return plain();
    }
  }

  @Nested
  class Engine extends EngineContract {
    @Override
    protected IdempotencyStore store() {
      return plain();
    }
  }

  @Nested
  class Steps extends StepContract {
    @Override
    protected IdempotencyStore store() {
      return plain();
    }

    @Override
    protected Class<? extends Supplier<IdempotencyStore>> crashStoreFactory() {
      return JdbcBackendTests.this.crashStoreFactory();
    }
  }

  @Nested
  class ResumeLogs extends ResumeLogContract {
    @Override
    protected ResumeLog log() {
      return resumeLog();
    }
  }

  @Nested
  class Completers extends CompleterContract {
    @BeforeEach
    void onlyWhereTheMatrixRunsIt() {
      assumeTrue(completerSuite(), "the completer suite runs on H2 and PostgreSQL");
    }

    @Override
    protected IdempotencyStore store() {
      return plain();
    }

    @Override
    protected ResumeLog log() {
      return resumeLog();
    }

    @Override
    protected @Nullable Class<? extends Supplier<IdempotencyStore>> crashStoreFactory() {
      return JdbcBackendTests.this.crashStoreFactory();
    }

    @Override
    protected @Nullable Class<? extends Supplier<ResumeLog>> crashLogFactory() {
      return JdbcBackendTests.this.crashLogFactory();
    }
  }

  private ResumeLog resumeLog() {
    return LOGS.computeIfAbsent(
        dialect().name() + " " + url(), k -> Databases.resumeLog(url(), dialect()));
  }

  @Nested
  class AsyncEngine extends AsyncEngineContract {
    @Override
    protected IdempotencyStore store() {
      return plain();
    }
  }

  @Nested
  class Outcomes extends OutcomeContract {
    @Override
    protected IdempotencyStore store() {
      return plain();
    }
  }

  @Nested
  class JoinedStore extends IdempotencyStoreContract {
    private final IdempotencyStore store = joined();

    @Override
    protected IdempotencyStore store() {
      return store;
    }

    @Override
    protected Class<? extends Supplier<IdempotencyStore>> crashStoreFactory() {
      return JdbcBackendTests.this.crashStoreFactory();
    }
  }

  @Nested
  class JoinedTokens extends TokenContract {
    private final IdempotencyStore store = joined();

    @Override
    protected IdempotencyStore store() {
      return store;
    }
  }

  @Nested
  class Specific extends JdbcStoreTests {
    @Override
    protected String url() {
      return JdbcBackendTests.this.url();
    }

    @Override
    protected JdbcDialect dialect() {
      return JdbcBackendTests.this.dialect();
    }
  }

  @Nested
  class Balances extends JdbcBalanceTests {
    @Override
    protected String url() {
      return JdbcBackendTests.this.url();
    }
  }

  @Nested
  class HotAccounts extends JdbcHotAccountTests {
    @Override
    protected String url() {
      return JdbcBackendTests.this.url();
    }

    @Override
    protected JdbcDialect dialect() {
      return JdbcBackendTests.this.dialect();
    }
  }

  @Nested
  class JoinModeBehindADecorator extends JoinModeTests {
    @Override
    protected String url() {
      return JdbcBackendTests.this.url();
    }

    @Override
    protected JdbcDialect dialect() {
      return JdbcBackendTests.this.dialect();
    }

    @Override
    protected boolean shared() {
      return JdbcBackendTests.this.shared();
    }

    @Override
    protected IdempotencyStore decorate(JdbcIdempotencyStore store) {
      return new ForwardingIdempotencyStore(store) {};
    }
  }

  @Nested
  class InboxBatches extends InboxBatchTests {
    @Override
    protected String url() {
      return JdbcBackendTests.this.url();
    }

    @Override
    protected JdbcDialect dialect() {
      return JdbcBackendTests.this.dialect();
    }
  }

  @Nested
  class JoinMode extends JoinModeTests {
    @Override
    protected String url() {
      return JdbcBackendTests.this.url();
    }

    @Override
    protected JdbcDialect dialect() {
      return JdbcBackendTests.this.dialect();
    }

    @Override
    protected boolean shared() {
      return JdbcBackendTests.this.shared();
    }
  }

  @Nested
  class Locks extends LockProviderContract {
    @Override
    protected LockProvider provider() {
      return LOCKS.computeIfAbsent(
          dialect().name() + " " + url(), k -> LockFixtures.provider(url(), dialect()));
    }
  }

  @Nested
  class JdbcLocks extends JdbcLockChecks {
    @Override
    protected String url() {
      return JdbcBackendTests.this.url();
    }

    @Override
    protected JdbcDialect dialect() {
      return JdbcBackendTests.this.dialect();
    }
  }

  @Nested
  class States extends StateStoreContract {
    @Override
    protected StateStore<String, PaymentStatus> store() {
      return STATES.computeIfAbsent(url(), LockFixtures::payments);
    }

    @Override
    protected void create(String id, PaymentStatus status) {
      store(); // makes the table
      LockFixtures.insertPayment(url(), id, status);
    }
  }

  @Nested
  class Migrations extends MigrationTests {
    @Override
    protected String url() {
      return JdbcBackendTests.this.url();
    }

    @Override
    protected JdbcDialect dialect() {
      return JdbcBackendTests.this.dialect();
    }
  }
}
