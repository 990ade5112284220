package dev.idem.spring.web.tx;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * What a transaction around the {@code Idempotency-Key} filter decides, on either HTTP stack: a
 * handler that writes its row and then answers 500 commits the row, so the answer is stored and
 * replayed and the handler never runs twice; an answer whose transaction fails to commit or rolls
 * back never reaches the client, who is told that nothing was kept, and its key is freed. The
 * application runs the chain in a transaction from a filter of its own, ordered before Idem's, that
 * sets {@code X-Outer} first and rolls back without an exception when the request carries {@link
 * #ROLL_BACK}; its handlers are {@code POST /placed/{orderNo}} (writes its row, answers 201 with a
 * {@code Location} and "placed #n", n its run for that order) and {@code POST /ledger/{orderNo}}
 * (writes its row, answers 500 with "the gateway failed after the write #n", n its run in all), and
 * {@code POST /large/{orderNo}} (as {@code /placed/}, with "large #n " and an answer of {@link
 * #LARGE_ANSWER_BYTES}, past the applications' {@link #MAX_BODY_BYTES}).
 */
public abstract class TransactionAroundTheFilterContract {

  /**
   * A request header that has the transaction around the filter roll back, without an exception.
   */
  public static final String ROLL_BACK = "X-Roll-Back";

  /**
   * The limit of a held answer the applications set ({@code idem.http.max-body-bytes}), and the
   * size of the answer of {@code POST /large/{orderNo}}, past it.
   */
  public static final String MAX_BODY_BYTES = "idem.http.max-body-bytes=64";

  public static final int LARGE_ANSWER_BYTES = 300;

  @LocalServerPort protected int port;

  /** The rows the handlers wrote, in the application's database. */
  public interface Ledger {
    int rows(String orderNo);

    /** How many times {@code /ledger/} ran. */
    int runs();

    /** Makes the commit of the first {@code /placed/} run for {@code orderNo} fail. */
    void failCommitOf(String orderNo);
  }

  protected abstract Ledger ledger();

  @Test
  void aServerErrorWhoseWritesCommittedIsStoredAndReplayedNotRunAgain() throws Exception {
    String orderNo = UUID.randomUUID().toString();
    HttpResponse<String> first = post("/ledger/", orderNo, false);
    // the answer went out once the transaction had committed, with the record
    HttpResponse<String> again = post("/ledger/", orderNo, false);
    assertThat(first.statusCode()).isEqualTo(500);
    assertThat(again.statusCode()).isEqualTo(500);
    assertThat(again.body()).isEqualTo(first.body());
    assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(ledger().rows(orderNo)).isEqualTo(1);
    assertThat(ledger().runs()).isEqualTo(1);
  }

  @Test
  void anAnswerWhoseTransactionFailsToCommitNeverReachesTheClientAndTheKeyIsFreed()
      throws Exception {
    String orderNo = UUID.randomUUID().toString();
    ledger().failCommitOf(orderNo);

    // the handler answered 201, then the commit failed (a flush at commit refused, as an ORM's
    // may be): the client must not be told the order was placed
    HttpResponse<String> failed = post("/placed/", orderNo, false);
    assertToldNothingWasKept(failed, orderNo);
    assertTheRetryRunsAndIsKept(orderNo);
  }

  @Test
  void anAnswerWhoseTransactionTheApplicationRollsBackNeverReachesTheClient() throws Exception {
    String orderNo = UUID.randomUUID().toString();

    // the application rolls its transaction back without an exception: no answer of the
    // handler's may go out, nor an empty 200
    HttpResponse<String> rolledBack = post("/placed/", orderNo, true);
    assertToldNothingWasKept(rolledBack, orderNo);
    assertTheRetryRunsAndIsKept(orderNo);
  }

  @Test
  void anAnswerAlreadyOnItsWayIsNotHeldAndItsRollbackStillFreesTheKey() throws Exception {
    String orderNo = UUID.randomUUID().toString();

    // past max-body-bytes the answer passes through as the handler writes it: it cannot wait for
    // the transaction, but what the transaction undoes is still not kept
    HttpResponse<String> undone = post("/large/", orderNo, true);
    assertThat(undone.statusCode()).isEqualTo(201);
    assertThat(undone.body()).startsWith("large #1 ").hasSize(LARGE_ANSWER_BYTES);
    assertThat(ledger().rows(orderNo)).isZero();

    HttpResponse<String> retried = post("/large/", orderNo, false);
    HttpResponse<String> again = post("/large/", orderNo, false);
    assertThat(retried.body()).startsWith("large #2 ");
    assertThat(again.statusCode()).isEqualTo(410);
    assertThat(again.body()).contains("urn:idem:problem:not-replayable");
    assertThat(ledger().rows(orderNo)).isEqualTo(1);
  }

  private void assertToldNothingWasKept(HttpResponse<String> answer, String orderNo) {
    assertThat(answer.statusCode()).isEqualTo(503);
    assertThat(answer.body()).contains("urn:idem:problem:rolled-back").doesNotContain("placed #");
    assertThat(answer.headers().firstValue("Retry-After")).hasValue("1");
    assertThat(answer.headers().firstValue("Idempotent-Replayed")).isEmpty();
    // nothing of the handler's answer, headers included: its Location names what was undone
    assertThat(answer.headers().firstValue("Location")).isEmpty();
    assertThat(answer.headers().firstValue("X-Outer")).hasValue("kept");
    assertThat(ledger().rows(orderNo)).isZero();
  }

  // nothing happened, so the retry runs the handler, and its answer is the one kept
  private void assertTheRetryRunsAndIsKept(String orderNo) throws Exception {
    HttpResponse<String> retried = post("/placed/", orderNo, false);
    HttpResponse<String> again = post("/placed/", orderNo, false);
    assertThat(retried.statusCode()).isEqualTo(201);
    assertThat(retried.body()).isEqualTo("placed #2");
    assertThat(again.body()).isEqualTo("placed #2");
    assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(ledger().rows(orderNo)).isEqualTo(1);
  }

  /** Sends {@code POST path + orderNo} with {@code orderNo} as its key. */
  protected HttpResponse<String> post(String path, String orderNo, boolean rollBack)
      throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path + orderNo))
                .header("Idempotency-Key", orderNo)
                .header(ROLL_BACK, Boolean.toString(rollBack))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }
}
