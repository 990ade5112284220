package dev.idem.spring.web;

import static dev.idem.spring.web.HttpConformanceTests.ORDER;
import static dev.idem.spring.web.HttpConformanceTests.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStore;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import reactor.blockhound.BlockHound;

/**
 * The rows of the HTTP table (docs/spring.md) over Spring WebFlux and real HTTP, with BlockHound
 * installed: a request that blocks an event-loop thread anywhere (Idem, the store's client, the
 * handlers) fails with a 500 and so fails its test. Each store runs it through a subclass.
 */
@SpringBootTest(
    classes = WebFluxTestApplication.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "spring.main.web-application-type=reactive",
      "idem.http.max-body-bytes=2KB",
      "idem.http.paths=/by-path/**",
      "idem.defaults.retry-after=2s",
      "idem.policies.stamped-by-policy.ignore-fields=requestedAt",
      "idem.policies.conflicting.retryable-statuses=409"
    })
abstract class WebFluxConformanceTests {

  @LocalServerPort int port;
  @Autowired WebFluxTestController controller;
  @Autowired IdempotencyStore store;

  Http http;
  String run;
  String key;

  /** The store class this backend's subclass expects the auto-configuration to pick. */
  abstract Class<? extends IdempotencyStore> expectedStore();

  @BeforeAll
  static void installBlockHound() {
    BlockHound.install();
  }

  @BeforeEach
  void setUp() {
    http = new Http(port);
    run = UUID.randomUUID().toString();
    key = UUID.randomUUID().toString();
  }

  HttpResponse<String> post(String path, String body, String... headers) {
    return send("POST", path, body, headers);
  }

  HttpResponse<String> send(String method, String path, String body, String... headers) {
    return http.send(method, path, body, withRun(headers));
  }

  String[] withRun(String... headers) {
    String[] all = new String[headers.length + 2];
    all[0] = "X-Run";
    all[1] = run;
    System.arraycopy(headers, 0, all, 2, headers.length);
    return all;
  }

  @Test
  void blockHoundRefusesABlockingCallOnTheEventLoop() {
    assertThat(post("/blocking", null).statusCode()).isEqualTo(500);
  }

  @Test
  void theAutoConfigurationPicksTheExpectedStore() {
    assertThat(store).isInstanceOf(expectedStore());
  }

  @Test
  void aProtectedRouteWithoutAKeyIsRefusedWithMissingKey() {
    assertProblem(post("/orders", ORDER), 400, "missing-key");
    assertProblem(post("/by-path/x", "{}"), 400, "missing-key");
    assertThat(controller.runs(run)).isZero();
  }

  @Test
  void invalidKeysAreRefusedWithInvalidKey() {
    assertProblem(post("/orders", ORDER, "Idempotency-Key", "a b"), 400, "invalid-key");
    assertProblem(post("/orders", ORDER, "Idempotency-Key", "x".repeat(256)), 400, "invalid-key");
    assertProblem(
        post("/orders", ORDER, "Idempotency-Key", "one", "Idempotency-Key", "two"),
        400,
        "invalid-key");
    assertThat(controller.runs(run)).isZero();
  }

  @Test
  void replaysTheFirstResponseToARepeatWithTheAllowedHeadersOnly() {
    HttpResponse<String> first = post("/orders", ORDER, "Idempotency-Key", key);
    HttpResponse<String> second =
        post("/orders", "{ \"qty\" : 2,\n \"item\" : \"tea\" }", "Idempotency-Key", key);

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
    assertThat(second.statusCode()).isEqualTo(201);
    assertThat(second.body()).isEqualTo(first.body());
    assertThat(second.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    for (String name : List.of("Content-Type", "Location", "ETag")) {
      assertThat(second.headers().firstValue(name)).isEqualTo(first.headers().firstValue(name));
    }
    assertThat(first.headers().firstValue("Set-Cookie")).isPresent();
    assertThat(second.headers().firstValue("Set-Cookie")).isEmpty();
    assertThat(second.headers().firstValue("X-Not-Replayed")).isEmpty();
    assertThat(controller.runs(run)).isEqualTo(1);
  }

  @Test
  void concurrentFirstCallsAndTheirRepeatsAreEachAnsweredOnce() {
    List<String> keys =
        java.util.stream.IntStream.range(0, 200).mapToObj(i -> key + "-" + i).toList();
    List<CompletableFuture<HttpResponse<String>>> firsts = new java.util.ArrayList<>();
    for (String each : keys) {
      firsts.add(http.sendAsync("POST", "/orders", ORDER, withRun("Idempotency-Key", each)));
    }
    List<HttpResponse<String>> answers = firsts.stream().map(CompletableFuture::join).toList();
    assertThat(answers).extracting(HttpResponse::statusCode).containsOnly(201);
    List<CompletableFuture<HttpResponse<String>>> repeats = new java.util.ArrayList<>();
    for (String each : keys) {
      repeats.add(http.sendAsync("POST", "/orders", ORDER, withRun("Idempotency-Key", each)));
    }
    for (int i = 0; i < keys.size(); i++) {
      HttpResponse<String> repeat = repeats.get(i).join();
      assertThat(repeat.body()).isEqualTo(answers.get(i).body());
      assertThat(repeat.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    }
    assertThat(controller.runs(run)).isEqualTo(keys.size());
  }

  @Test
  void aKeyReusedWithAnotherPayloadIsRefusedWithKeyReuse() {
    post("/orders", ORDER, "Idempotency-Key", key);
    assertProblem(
        post("/orders", "{\"item\":\"coffee\",\"qty\":2}", "Idempotency-Key", key),
        422,
        "key-reuse");
    assertThat(controller.runs(run)).isEqualTo(1);
  }

  @Test
  void aRepeatWhileTheFirstRunsGets409WithRetryAfter() throws Exception {
    controller.hold(run);
    CompletableFuture<HttpResponse<String>> first;
    try {
      first = http.sendAsync("POST", "/slow", null, withRun("Idempotency-Key", key));
      await().atMost(Duration.ofSeconds(20)).until(() -> controller.runs(run) == 1);
      HttpResponse<String> second = post("/slow", null, "Idempotency-Key", key);
      assertProblem(second, 409, "in-progress");
      assertThat(second.headers().firstValue("Retry-After")).hasValue("2");
      assertThat(first).as("the first, held").isNotDone();
    } finally {
      controller.release(run);
    }
    assertThat(first.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    HttpResponse<String> after = post("/slow", null, "Idempotency-Key", key);
    assertThat(after.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(after.body()).isEqualTo(first.get().body());
    assertThat(controller.runs(run)).isEqualTo(1);
  }

  @Test
  void aDuplicateUnderAWaitPolicyGetsTheFirstAnswer() throws Exception {
    controller.hold(run);
    CompletableFuture<HttpResponse<String>> first;
    CompletableFuture<HttpResponse<String>> second;
    try {
      first = http.sendAsync("POST", "/slow-wait", null, withRun("Idempotency-Key", key));
      await().atMost(Duration.ofSeconds(20)).until(() -> controller.runs(run) == 1);
      second = http.sendAsync("POST", "/slow-wait", null, withRun("Idempotency-Key", key));
      await().atMost(Duration.ofSeconds(20)).until(() -> controller.claims(key) >= 2);
      assertThat(second).as("the duplicate waits").isNotDone();
    } finally {
      controller.release(run);
    }
    HttpResponse<String> waited = second.get(20, TimeUnit.SECONDS);
    assertThat(waited.statusCode()).isEqualTo(200);
    assertThat(waited.body()).isEqualTo(first.get(20, TimeUnit.SECONDS).body());
    assertThat(waited.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(controller.runs(run)).isEqualTo(1);
  }

  @Test
  void twoUsersWithTheSameKeyAreIndependent() {
    HttpResponse<String> alice = post("/orders", ORDER, "Idempotency-Key", key, "X-User", "alice");
    HttpResponse<String> bob = post("/orders", ORDER, "Idempotency-Key", key, "X-User", "bob");
    assertThat(bob.headers().firstValue("Idempotent-Replayed")).isEmpty();
    assertThat(bob.body()).isNotEqualTo(alice.body());
    assertThat(controller.runs(run)).isEqualTo(2);
  }

  @Test
  void aRequestRefusedBeforeTheHandlerStoresNothingAndFreesTheKey() {
    assertThat(post("/orders", "{\"item\":", "Idempotency-Key", key).statusCode()).isEqualTo(400);
    HttpResponse<String> fixed = post("/orders", ORDER, "Idempotency-Key", key);
    assertThat(fixed.statusCode()).isEqualTo(201);
    assertThat(fixed.headers().firstValue("Idempotent-Replayed")).isEmpty();
    assertThat(controller.runs(run)).isEqualTo(1);
  }

  @Test
  void aServerErrorIsNotStoredAndARetryRunsAgain() {
    assertThat(post("/fail", null, "Idempotency-Key", key).statusCode()).isEqualTo(503);
    HttpResponse<String> retry = post("/fail", null, "Idempotency-Key", key);
    assertThat(retry.statusCode()).isEqualTo(503);
    assertThat(retry.body()).isEqualTo("down 2");
    assertThat(controller.runs(run)).isEqualTo(2);
  }

  @Test
  void aClientErrorIsStoredAndReplayed() {
    HttpResponse<String> first = post("/reject", null, "Idempotency-Key", key);
    HttpResponse<String> second = post("/reject", null, "Idempotency-Key", key);
    assertThat(second.statusCode()).isEqualTo(422);
    assertThat(second.body()).isEqualTo(first.body());
    assertThat(second.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(controller.runs(run)).isEqualTo(1);
  }

  @Test
  void aRequestBodyOverTheLimitIsRefusedWith413() {
    String big = "{\"item\":\"" + "x".repeat(3000) + "\",\"qty\":1}";
    assertProblem(post("/orders", big, "Idempotency-Key", key), 413, "body-too-large");
    assertThat(controller.runs(run)).isZero();
  }

  @Test
  void anAnswerOverTheLimitRunsOnceAndRepeatsGetNotReplayable() {
    HttpResponse<String> first = post("/big?size=5000", null, "Idempotency-Key", key);
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.body()).hasSize(5000);
    HttpResponse<String> repeat = post("/big?size=5000", null, "Idempotency-Key", key);
    assertProblem(repeat, 410, "not-replayable");
    assertThat(repeat.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(controller.runs(run)).isEqualTo(1);
  }

  @Test
  void anAnnotatedPutIsAnOptInAndAPlainPutIsLeftAlone() {
    HttpResponse<String> first = send("PUT", "/documents/7", null, "Idempotency-Key", key);
    HttpResponse<String> again = send("PUT", "/documents/7", null, "Idempotency-Key", key);
    assertThat(again.body()).isEqualTo(first.body()).isEqualTo("replaced 7 #1");
    send("PUT", "/drafts/7", null, "Idempotency-Key", key);
    assertThat(send("PUT", "/drafts/7", null, "Idempotency-Key", key).body())
        .isEqualTo("draft 7 #3");
  }

  @Test
  void aFunctionalRouteIsProtectedByItsPath() {
    HttpResponse<String> first = post("/by-path/tea", "{}", "Idempotency-Key", key);
    HttpResponse<String> again = post("/by-path/tea", "{}", "Idempotency-Key", key);
    assertThat(again.body()).isEqualTo(first.body());
    assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(controller.runs(run)).isEqualTo(1);
  }

  @Test
  void anOptionalKeyLetsARequestWithoutOneThrough() {
    assertThat(post("/optional", null).body()).isEqualTo("optional 1");
    assertThat(post("/optional", null).body()).isEqualTo("optional 2");
  }

  @Test
  void theHandlerSeesItsKeyAndCountsAsInFlight() {
    assertThat(post("/key-attribute", null, "Idempotency-Key", "\"" + key + "\"").body())
        .isEqualTo(key);
    assertThat(post("/inflight", null, "Idempotency-Key", key).body()).isEqualTo("1");
  }

  @Test
  void anIssuedTokenRunsOnceAndAnUnknownOneIsRefused() {
    HttpResponse<String> issued = post("/api/tokens", null, "X-User", "carol");
    assertThat(issued.statusCode()).isEqualTo(201);
    String token = issued.body().replaceAll(".*\"token\":\"([^\"]+)\".*", "$1");

    HttpResponse<String> first =
        post("/orders", ORDER, "X-Idempotent-Token", token, "X-User", "carol");
    HttpResponse<String> again =
        post("/orders", ORDER, "X-Idempotent-Token", token, "X-User", "carol");
    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(again.body()).isEqualTo(first.body());
    assertThat(controller.runs(run)).isEqualTo(1);
    assertProblem(
        post("/orders", ORDER, "X-Idempotent-Token", token, "X-User", "dave"),
        400,
        "unknown-token");
    assertProblem(
        post("/orders", ORDER, "X-Idempotent-Token", "forged", "X-User", "carol"),
        400,
        "unknown-token");
  }

  @Test
  void aClientThatGoesAwayMidHandlerLeavesTheEffectOnceAndItsAnswerStored() throws Exception {
    controller.hold(run);
    CompletableFuture<HttpResponse<String>> first =
        http.sendAsync("POST", "/slow", null, withRun("Idempotency-Key", key));
    await().atMost(Duration.ofSeconds(20)).until(() -> controller.runs(run) == 1);
    first.cancel(true);
    controller.release(run);

    HttpResponse<String> retry =
        await()
            .atMost(Duration.ofSeconds(20))
            .until(() -> post("/slow", null, "Idempotency-Key", key), r -> r.statusCode() == 200);
    assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(controller.runs(run)).isEqualTo(1);
  }

  @Test
  void aQuotedAndABareKeyAreTheSameKeyAndJsonIsComparedCanonically() {
    post("/orders", ORDER, "Idempotency-Key", "\"" + key + "\"");
    HttpResponse<String> second =
        post("/orders", "{ \"qty\" : 2,\n \"item\" : \"tea\" }", "Idempotency-Key", key);
    assertThat(second.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(controller.runs(run)).isEqualTo(1);
  }

  @Test
  void aChangeInAnExcludedFieldReplaysAndAChangeElsewhereIsKeyReuse() {
    HttpResponse<String> first =
        post("/stamped", stamped("tea", "12:00", "t1", "web"), "Idempotency-Key", key);
    HttpResponse<String> later =
        post("/stamped", stamped("tea", "12:05", "t2", "web"), "Idempotency-Key", key);
    assertThat(later.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(later.body()).isEqualTo(first.body());
    assertProblem(
        post("/stamped", stamped("coffee", "12:00", "t1", "web"), "Idempotency-Key", key),
        422,
        "key-reuse");
    assertProblem(
        post("/stamped", stamped("tea", "12:00", "t1", "app"), "Idempotency-Key", key),
        422,
        "key-reuse");
    assertThat(controller.runs(run)).isEqualTo(1);
  }

  @Test
  void excludedFieldsCanBeSetInTheOperationsPolicy() {
    HttpResponse<String> first =
        post("/stamped-by-policy", stamped("tea", "12:00", "t1", "web"), "Idempotency-Key", key);
    HttpResponse<String> later =
        post("/stamped-by-policy", stamped("tea", "12:05", "t1", "web"), "Idempotency-Key", key);
    assertThat(later.body()).isEqualTo(first.body());
    assertProblem(
        post("/stamped-by-policy", stamped("tea", "12:00", "t2", "web"), "Idempotency-Key", key),
        422,
        "key-reuse");
    assertThat(controller.runs(run)).isEqualTo(1);
  }

  @Test
  void theActualPathIsInTheFingerprint() {
    HttpResponse<String> first = send("PATCH", "/orders/7", null, "Idempotency-Key", key);
    HttpResponse<String> second = send("PATCH", "/orders/7", null, "Idempotency-Key", key);
    assertThat(second.body()).isEqualTo(first.body());
    assertThat(second.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertProblem(send("PATCH", "/orders/8", null, "Idempotency-Key", key), 422, "key-reuse");
    String other = UUID.randomUUID().toString();
    assertThat(post("/accounts/A/payments", ORDER, "Idempotency-Key", other).body())
        .isEqualTo("paid A 2");
    assertProblem(post("/accounts/B/payments", ORDER, "Idempotency-Key", other), 422, "key-reuse");
    assertThat(controller.runs(run)).isEqualTo(2);
  }

  @Test
  void aRetryableStatusOfThePolicyIsAnsweredUnstoredAndFreesTheKey() {
    HttpResponse<String> conflict =
        post("/conflicting?conflict=true", null, "Idempotency-Key", key);
    assertThat(conflict.statusCode()).isEqualTo(409);
    assertThat(conflict.body()).isEqualTo("conflicting 1");
    HttpResponse<String> retry = post("/conflicting?conflict=false", null, "Idempotency-Key", key);
    assertThat(retry.statusCode()).isEqualTo(201);
    assertThat(retry.body()).isEqualTo("conflicting 2");
    HttpResponse<String> repeat = post("/conflicting?conflict=false", null, "Idempotency-Key", key);
    assertThat(repeat.body()).isEqualTo("conflicting 2");
    assertThat(repeat.headers().firstValue("Idempotent-Replayed")).hasValue("true");
  }

  @Test
  void aClientErrorIsKeptForTheShorterClientErrorRetention() {
    post("/reject", null, "Idempotency-Key", key);
    Instant now = Instant.now();
    assertThat(
            store.find(IdempotencyKey.of("POST /reject|anonymous", key)).orElseThrow().expiresAt())
        .as("a 422 is kept for idem.http.client-error-retention (1 h)")
        .isBefore(now.plus(Duration.ofHours(2)));
  }

  @Test
  void fuzzedKeyHeadersNeverCauseA500OrRunARefusedRequest() {
    Random random = new Random(42);
    int executed = 0;
    for (int i = 0; i < 100; i++) {
      String header = Http.fuzzedHeader(random);
      HttpResponse<String> answer =
          post("/orders", ORDER, "Idempotency-Key", header, "X-User", run);
      assertThat(answer.statusCode()).as(header).isIn(201, 400);
      if (answer.statusCode() == 400) {
        assertThat(answer.body()).as(header).contains("invalid-key");
      } else if (answer.headers().firstValue("Idempotent-Replayed").isEmpty()) {
        executed++;
      }
    }
    assertThat(executed).isPositive();
    assertThat(controller.runs(run)).isEqualTo(executed);
  }

  @Test
  void fiftyConcurrentRequestsWithOneKeyRunOnceUnderReject() {
    List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
    controller.hold(run);
    try {
      for (int i = 0; i < 50; i++) {
        answers.add(http.sendAsync("POST", "/slow", null, withRun("Idempotency-Key", key)));
      }
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> answers.stream().filter(CompletableFuture::isDone).count() == 49);
      assertThat(controller.runs(run)).isEqualTo(1);
      assertThat(answers.stream().filter(CompletableFuture::isDone).map(CompletableFuture::join))
          .allSatisfy(r -> assertProblem(r, 409, "in-progress"));
    } finally {
      controller.release(run);
    }
    assertThat(answers.stream().map(CompletableFuture::join).filter(r -> r.statusCode() == 200))
        .hasSize(1);
    assertThat(controller.runs(run)).isEqualTo(1);
  }

  @Test
  void fiftyConcurrentRequestsWithOneKeyGetOneAnswerUnderWait() {
    List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
    controller.hold(run);
    try {
      for (int i = 0; i < 50; i++) {
        answers.add(http.sendAsync("POST", "/slow-wait", null, withRun("Idempotency-Key", key)));
      }
      // more duplicates wait than there are store threads (idem.async.threads, 16)
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> controller.claims(key) >= 50 && controller.runs(run) == 1);
      assertThat(answers).noneMatch(CompletableFuture::isDone);
    } finally {
      controller.release(run);
    }
    List<HttpResponse<String>> done = answers.stream().map(CompletableFuture::join).toList();
    assertThat(controller.runs(run)).isEqualTo(1);
    assertThat(done).allMatch(r -> r.statusCode() == 200);
    assertThat(done).extracting(HttpResponse::body).containsOnly(done.get(0).body());
  }

  private static String stamped(String item, String requestedAt, String traceId, String source) {
    return HttpConformanceTests.stamped(item, requestedAt, traceId, source);
  }
}
