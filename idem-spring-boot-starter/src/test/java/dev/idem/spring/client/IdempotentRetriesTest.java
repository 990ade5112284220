package dev.idem.spring.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.ResultCodec;
import dev.idem.core.memory.InMemoryIdempotencyStore;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.support.RestClientAdapter;
import org.springframework.web.service.annotation.PostExchange;
import org.springframework.web.service.invoker.HttpServiceProxyFactory;

/**
 * {@link IdempotentRetries} against a real HTTP server that answers from a script: which answers it
 * retries, under which key, when, and what the caller gets.
 */
class IdempotentRetriesTest {

  private final ScriptedServer server = new ScriptedServer();
  private final RestClient client =
      client(IdempotentRetries.builder().delay(Duration.ofMillis(10), Duration.ofMillis(50)));

  /**
   * A client whose backoff alone (10 s at least) would run past its 3 s budget: it retries only
   * when the server's {@code Retry-After} asks for a shorter wait.
   */
  private final RestClient patient =
      client(
          IdempotentRetries.builder()
              .delay(Duration.ofSeconds(10), Duration.ofSeconds(10))
              .timeout(Duration.ofSeconds(3)));

  /** A client that knows the scripted server honours the key. */
  private final RestClient honouring =
      client(
          IdempotentRetries.builder()
              .delay(Duration.ofMillis(10), Duration.ofMillis(50))
              .keysHonouredBy(server.url()));

  @AfterEach
  void stop() {
    server.close();
  }

  private RestClient client(IdempotentRetries.Builder retries) {
    return RestClient.builder()
        .baseUrl(server.url())
        .requestFactory(new JdkClientHttpRequestFactory())
        .requestInterceptor(retries.build())
        .build();
  }

  private String post(RestClient client) {
    return client.post().uri("/orders").body("{}").retrieve().body(String.class);
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
  void aCallMadeInsideAStepSendsTheStepsKeyOnEveryRunOfTheWork() {
    Idempotency engine = Idempotency.builder(new InMemoryIdempotencyStore()).build();
    IdempotencyKey call = IdempotencyKey.of("checkout|alice", "order-7");
    for (int run = 0; run < 2; run++) {
      server.then(503, 0);
      server.then(201);
      try {
        engine
            .call(call, Fingerprint.NONE)
            .run(
                ctx -> {
                  // a step that stores nothing (its answer is kept for no time) runs on every run
                  ctx.step("charge", Fingerprint.NONE, forgotten(), step -> post(client));
                  post(client);
                  throw new IllegalStateException("the reply to the client was lost");
                });
      } catch (IllegalStateException expected) {
        // run the work again
      }
    }
    engine.close();

    String stepKey =
        Fingerprint.of("http", call.step("charge", Fingerprint.NONE).digest(), "POST", "/orders")
            .value();
    assertThat(server.keysSeen()).hasSize(6);
    assertThat(server.keysSeen().subList(0, 2)).containsOnly(stepKey);
    assertThat(server.keysSeen().subList(3, 5)).containsOnly(stepKey);
    assertThat(server.keysSeen().get(2))
        .as("a call outside the step gets a key of its own")
        .isNotEqualTo(stepKey)
        .isNotEqualTo(server.keysSeen().get(5));
  }

  private static ResultCodec<String> forgotten() {
    ResultCodec<String> text = ResultCodec.utf8();
    return new ResultCodec<>() {
      @Override
      public byte[] encode(String value) {
        return text.encode(value);
      }

      @Override
      public String decode(byte[] stored) {
        return text.decode(stored);
      }

      @Override
      public Duration retention(String value, Duration configured) {
        return Duration.ZERO;
      }
    };
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
    assertThatThrownBy(() -> post(client)).isInstanceOf(ResourceAccessException.class);
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

    RestClient retrying =
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
        .body("{}")
        .retrieve()
        .toBodilessEntity();

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
        .isInstanceOf(HttpClientErrorException.UnprocessableContent.class);
    server.then(400);
    assertThatThrownBy(() -> post(client)).isInstanceOf(HttpClientErrorException.BadRequest.class);

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
        .isInstanceOf(HttpServerErrorException.ServiceUnavailable.class)
        .hasMessageContaining("answer 503 #1");
    assertThat(server.keysSeen()).hasSize(1);
  }

  @Test
  void aConflictWhoseRetryAfterIsADateIsRetriedByTheBackoff() {
    server.then(409, ScriptedServer.DATE);

    assertThat(post(client)).isEqualTo("answer 200 #2");
  }

  @Test
  void aConflictWithoutRetryAfterIsTheCallersAtOnce() {
    server.then(409);

    assertThatThrownBy(() -> post(client))
        .isInstanceOf(HttpClientErrorException.Conflict.class)
        .hasMessageContaining("answer 409 #1");
    assertThat(server.keysSeen()).hasSize(1);
  }

  @Test
  void aRetryAfterLongerThanTheCapIsCutToIt() {
    RestClient capped =
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
        .isInstanceOf(HttpServerErrorException.ServiceUnavailable.class)
        .hasMessageContaining("answer 503 #4");
    assertThat(server.keysSeen()).hasSize(4);
  }

  /** An HTTP interface, as a caller of the shop would declare it. */
  interface Orders {
    @PostExchange("/orders")
    String place(@RequestBody String order);

    @PostExchange("/orders")
    String place(@RequestHeader("Idempotency-Key") String key, @RequestBody String order);
  }

  @Test
  void anHttpInterfaceClientOverTheRestClientRetriesUnderOneKey() {
    Orders orders =
        HttpServiceProxyFactory.builderFor(RestClientAdapter.create(honouring))
            .build()
            .createClient(Orders.class);
    server.then(503, 0);
    server.then(409, 0);
    server.then(201);
    server.then(502);

    assertThat(orders.place("{}")).isEqualTo("answer 201 #3");
    assertThat(orders.place("form-7", "{}")).isEqualTo("answer 200 #5");

    assertThat(server.keysSeen()).hasSize(5).doesNotContain("none");
    assertThat(server.keysSeen().subList(0, 3)).containsOnly(server.keysSeen().get(0));
    assertThat(server.keysSeen().subList(3, 5)).containsOnly("form-7");
  }

  @Test
  void otherMethodsPassThroughWithoutAKeyOrARetry() {
    server.then(503, 0);

    assertThatThrownBy(() -> client.get().uri("/orders").retrieve().toBodilessEntity())
        .hasMessageContaining("503");

    assertThat(server.keysSeen()).containsExactly("none");
  }
}
