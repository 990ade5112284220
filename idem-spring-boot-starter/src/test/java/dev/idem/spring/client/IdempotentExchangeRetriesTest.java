package dev.idem.spring.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientRequestException;
import org.springframework.web.reactive.function.client.WebClientResponseException;

/**
 * {@link IdempotentExchangeRetries} against the same scripted server as {@link
 * IdempotentRetriesTest}: a {@code WebClient} retries by the same rules as a {@code RestClient}.
 */
class IdempotentExchangeRetriesTest {

  private final ScriptedServer server = new ScriptedServer();
  private final WebClient client =
      client(IdempotentRetries.builder().delay(Duration.ofMillis(10), Duration.ofMillis(50)));

  /** A backoff (10 s at least) longer than the budget (3 s): only Retry-After can ask sooner. */
  private final WebClient patient =
      client(
          IdempotentRetries.builder()
              .delay(Duration.ofSeconds(10), Duration.ofSeconds(10))
              .timeout(Duration.ofSeconds(3)));

  /** A client that knows the scripted server honours the key. */
  private final WebClient honouring =
      client(
          IdempotentRetries.builder()
              .delay(Duration.ofMillis(10), Duration.ofMillis(50))
              .keysHonouredBy(server.url()));

  @AfterEach
  void stop() {
    server.close();
  }

  private WebClient client(IdempotentRetries.Builder retries) {
    return WebClient.builder()
        .baseUrl(server.url())
        .clientConnector(new JdkClientHttpConnector())
        .filter(IdempotentExchangeRetries.from(retries.build()))
        .build();
  }

  private String post(WebClient client) {
    return client.post().uri("/orders").bodyValue("{}").retrieve().bodyToMono(String.class).block();
  }

  @Test
  void aCallRetriedAfter5xxAnd409And429KeepsItsOneKeyAndGetsTheLastAnswer() {
    server.then(503, 0);
    server.then(409, 0);
    server.then(429);
    server.then(201);

    assertThat(post(client)).isEqualTo("answer 201 #4");
    assertThat(server.keysSeen()).hasSize(4).doesNotContain("none");
    assertThat(server.keysSeen()).containsOnly(server.keysSeen().get(0));
  }

  @Test
  void aLostReplyIsRetriedUnderTheSameKeyToAServerThatHonoursIt() {
    server.loseNextReply();

    assertThat(post(honouring)).isEqualTo("answer 200 #2");
    assertThat(server.keysSeen()).hasSize(2).doesNotContain("none");
    assertThat(server.keysSeen()).containsOnly(server.keysSeen().get(0));
  }

  @Test
  void aRequestWhoseOutcomeIsUnknownIsNotSentAgainToAServerNotKnownToHonourTheKey() {
    // such a server may have run it: a read timeout or a 502 after its effect would run it twice
    server.loseNextReply();
    assertThatThrownBy(() -> post(client)).isInstanceOf(WebClientRequestException.class);
    server.then(502);
    assertThatThrownBy(() -> post(client)).hasMessageContaining("502");

    assertThat(server.keysSeen()).hasSize(2);
  }

  @Test
  void a503WithoutRetryAfterIsSentAgainOnlyToAServerThatHonoursTheKey() {
    // a proxy answers 503 when its upstream failed after taking the request
    server.then(503);
    assertThatThrownBy(() -> post(client)).hasMessageContaining("503");
    assertThat(server.keysSeen()).hasSize(1);

    server.then(503);
    assertThat(post(honouring)).isEqualTo("answer 200 #3");
  }

  @Test
  void aServerThatMarkedAnAnswerReplayedIsKnownToHonourTheKey() {
    server.thenReplayed(201);
    assertThat(post(client)).isEqualTo("answer 201 #1");
    server.loseNextReply();

    assertThat(post(client)).isEqualTo("answer 200 #3");
    assertThat(server.keysSeen().subList(1, 3)).containsOnly(server.keysSeen().get(1));
  }

  @Test
  void a500IsTheCallersUnlessRetryServerErrorsSaysSoForAServerThatHonoursTheKey() {
    // a 500 may come after the effect committed
    server.then(500);
    assertThatThrownBy(() -> post(honouring)).hasMessageContaining("500");
    assertThat(server.keysSeen()).hasSize(1);

    WebClient retrying =
        client(
            IdempotentRetries.builder()
                .delay(Duration.ofMillis(10), Duration.ofMillis(50))
                .keysHonouredBy(server.url())
                .retryServerErrors(true));
    server.then(500);
    assertThat(post(retrying)).isEqualTo("answer 200 #3");
  }

  @Test
  void theCallersOwnKeyIsKept() {
    server.then(502);

    honouring
        .post()
        .uri("/orders")
        .header("Idempotency-Key", "form-7")
        .bodyValue("{}")
        .retrieve()
        .toBodilessEntity()
        .block();

    assertThat(server.keysSeen()).containsExactly("form-7", "form-7");
  }

  @Test
  void everyCallHasAKeyOfItsOwn() {
    post(client);
    post(client);

    assertThat(server.keysSeen()).hasSize(2).doesNotHaveDuplicates();
  }

  @Test
  void otherClientErrorsAreAnsweredAtOnceAnd422ReachesTheCaller() {
    server.then(422);
    assertThatThrownBy(() -> post(client))
        .isInstanceOf(WebClientResponseException.UnprocessableContent.class);
    server.then(400);
    assertThatThrownBy(() -> post(client))
        .isInstanceOf(WebClientResponseException.BadRequest.class);

    assertThat(server.keysSeen()).hasSize(2);
  }

  @Test
  void aConflictIsRetriedAsSoonAsRetryAfterSays() {
    server.then(409, 0);

    assertThat(post(patient)).isEqualTo("answer 200 #2");
  }

  @Test
  void withoutRetryAfterTheBackoffDecidesAndMayRunPastTheBudget() {
    server.then(503);

    assertThatThrownBy(() -> post(patient))
        .isInstanceOfSatisfying(
            WebClientResponseException.ServiceUnavailable.class,
            e -> assertThat(e.getResponseBodyAsString()).isEqualTo("answer 503 #1"));
    assertThat(server.keysSeen()).hasSize(1);
  }

  @Test
  void aConflictWithoutRetryAfterIsTheCallersAtOnce() {
    server.then(409);

    assertThatThrownBy(() -> post(client))
        .isInstanceOfSatisfying(
            WebClientResponseException.Conflict.class,
            e -> assertThat(e.getResponseBodyAsString()).isEqualTo("answer 409 #1"));
    assertThat(server.keysSeen()).hasSize(1);
  }

  @Test
  void aRetryAfterLongerThanTheCapIsCutToIt() {
    WebClient capped =
        client(
            IdempotentRetries.builder()
                .delay(Duration.ofSeconds(10), Duration.ofSeconds(10))
                .maxRetryAfter(Duration.ofMillis(1))
                .timeout(Duration.ofSeconds(3)));
    server.then(503, 60);

    assertThat(post(capped)).isEqualTo("answer 200 #2");
  }

  @Test
  void whenTheBudgetRunsOutTheCallerGetsTheLastAnswer() {
    for (int i = 0; i < 6; i++) {
      server.then(503, 0);
    }

    assertThatThrownBy(() -> post(client))
        .isInstanceOfSatisfying(
            WebClientResponseException.ServiceUnavailable.class,
            e -> assertThat(e.getResponseBodyAsString()).isEqualTo("answer 503 #4"));
    assertThat(server.keysSeen()).hasSize(4);
  }

  @Test
  void otherMethodsPassThroughWithoutAKeyOrARetry() {
    server.then(503, 0);

    assertThatThrownBy(() -> client.get().uri("/orders").retrieve().toBodilessEntity().block())
        .isInstanceOf(WebClientResponseException.ServiceUnavailable.class);

    assertThat(server.keysSeen()).containsExactly("none");
  }

  @Test
  @Timeout(30) // a filter that waited on the subscriber's thread would hang here, not fail
  void subscribingDoesNotWaitForTheAnswer() throws Exception {
    server.then(503, 0);
    server.hold(true);

    CompletableFuture<String> answer =
        client.post().uri("/orders").bodyValue("{}").retrieve().bodyToMono(String.class).toFuture();
    server.hold(false);

    assertThat(answer.get()).isEqualTo("answer 200 #2");
  }
}
