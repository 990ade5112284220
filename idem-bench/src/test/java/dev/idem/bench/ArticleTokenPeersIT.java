package dev.idem.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.bench.article.ArticleTokenService;
import dev.idem.bench.article.CheckThenDeleteTokenService;
import dev.idem.bench.article.FixedTokenService;
import dev.idem.bench.article.TokenGuard;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The article's token code as ported: the flaws its Javadoc states are real, and the fix holds, on
 * the Redis at {@code IDEM_REDIS_URI}. Races are forced with latches: the second request runs
 * entirely while the first is held inside its work.
 */
class ArticleTokenPeersIT {

  private RedisRig rig;
  private String prefix;

  @BeforeEach
  void connect() {
    rig = RedisRig.fromEnvironment();
    prefix = rig.prefix() + "idempotent:token:";
  }

  @AfterEach
  void cleanUp() {
    rig.close();
  }

  @Test
  void asWrittenRefusesEveryIssuedTokenAndAcceptsOneNeverIssued() {
    ArticleTokenService service = new ArticleTokenService(rig.raw(), prefix);
    String issued = service.generateToken();

    assertThat(service.validateAndConsumeToken(issued)).isFalse();
    String forged = UUID.randomUUID().toString().replace("-", "");
    assertThat(service.validateAndConsumeToken(forged)).isTrue();
    assertThat(service.validateAndConsumeToken(forged)).isFalse();
  }

  @Test
  void asDrawnRunsTheWorkTwiceWhenTheSecondRequestChecksBeforeTheFirstDeletes() throws Exception {
    TokenGuard service = new CheckThenDeleteTokenService(rig.raw(), prefix);

    assertThat(secondRequestDuringFirst(service)).isEqualTo(2);
  }

  @Test
  void fixedRunsTheWorkOnceUnderTheSameInterleaving() throws Exception {
    TokenGuard service = new FixedTokenService(rig.raw(), prefix);

    assertThat(secondRequestDuringFirst(service)).isEqualTo(1);
  }

  @Test
  void fixedRefusesTokensNeverIssuedAndUsedOnes() {
    FixedTokenService service = new FixedTokenService(rig.raw(), prefix);
    String token = service.issue();

    assertThat(service.submit("never-issued", () -> "x")).isEmpty();
    assertThat(service.submit(token, () -> "first")).contains("first");
    assertThat(service.submit(token, () -> "second")).isEmpty();
  }

  @Test
  void fixedGivesTheTokenBackWhenTheWorkFails() {
    FixedTokenService service = new FixedTokenService(rig.raw(), prefix);
    String token = service.issue();

    CompletableFuture<Optional<String>> failed =
        CompletableFuture.supplyAsync(
            () ->
                service.submit(
                    token,
                    () -> {
                      throw new IllegalStateException("downstream failed");
                    }));

    assertThat(failed).failsWithin(10, TimeUnit.SECONDS);
    assertThat(service.submit(token, () -> "retried")).contains("retried");
  }

  // Request one enters the work and waits there; request two, with the same token, runs from
  // start to end meanwhile; then request one finishes. Returns how often the work ran.
  private static int secondRequestDuringFirst(TokenGuard service) throws Exception {
    String token = service.issue();
    AtomicInteger runs = new AtomicInteger();
    CountDownLatch firstInside = new CountDownLatch(1);
    CountDownLatch secondDone = new CountDownLatch(1);
    CompletableFuture<Optional<String>> first =
        CompletableFuture.supplyAsync(
            () ->
                service.submit(
                    token,
                    () -> {
                      runs.incrementAndGet();
                      firstInside.countDown();
                      await(secondDone);
                      return "first";
                    }));
    assertThat(firstInside.await(10, TimeUnit.SECONDS)).isTrue();
    try {
      service.submit(
          token,
          () -> {
            runs.incrementAndGet();
            return "second";
          });
    } finally {
      secondDone.countDown();
    }
    assertThat(first.get(10, TimeUnit.SECONDS)).contains("first");
    return runs.get();
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("latch not released");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
