package dev.idem.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;

/**
 * A small model of the {@code Idempotency-Key} semantics, played against a running application:
 * random sequences of requests (several payloads, queries, paths, methods of one handler, forms,
 * callers and keys), repeats, concurrent copies and refusals, each answer compared with what the
 * model says it must be, request by request. The model knows one record per operation, caller and
 * key: its request's fingerprint class and its answer. A request whose record exists is answered
 * with it (the same class) or refused as key reuse (another); without one, its handler runs and the
 * model keeps the answer when the rules say it is stored.
 *
 * <p>Sequences come from fixed seeds, so that a failure can be played again; {@code
 * -Didem.model.seed=N} plays one other seed and {@code -Didem.model.steps=N} longer sequences.
 */
final class HttpModel {

  /** What the application does with a request whose key is free. */
  enum Kind {
    /** The handler runs and its answer is stored. */
    STORED,
    /** The handler runs and its answer goes out unstored, freeing the key (5xx, retryable). */
    UNSTORED,
    /** The request is refused before its handler runs, after the claim; the key is freed. */
    REFUSED,
    /** The request is refused before the claim, whatever the key's state. */
    REFUSED_UNCLAIMED
  }

  /**
   * One request the model can send.
   *
   * @param operation the handler's operation: one key means one request for it
   * @param fingerprint requests of the same class are the same request
   * @param status the status of the handler's answer (or of the refusal)
   */
  record Shape(
      String operation,
      String fingerprint,
      Kind kind,
      int status,
      String method,
      String path,
      String body,
      String... headers) {

    /** An answer the stack renders for each request: a 406 no converter could write. */
    boolean rendered() {
      return status == 406;
    }
  }

  private static final String FORM = "application/x-www-form-urlencoded";

  /** The requests both stacks answer alike; see TestController and WebFluxTestController. */
  static final List<Shape> SHAPES =
      List.of(
          post("transfers", "10", Kind.STORED, 200, "/transfers?amount=10", null),
          post("transfers", "1000", Kind.STORED, 200, "/transfers?amount=1000", null),
          post("orders", "tea2", Kind.STORED, 201, "/orders", HttpConformanceTests.ORDER),
          post("orders", "tea2", Kind.STORED, 201, "/orders", "{ \"qty\": 2, \"item\": \"tea\" }"),
          post("orders", "tea3", Kind.STORED, 201, "/orders", "{\"item\":\"tea\",\"qty\":3}"),
          post("orders", "broken", Kind.REFUSED, 400, "/orders", "{\"item\":"),
          post("validated", "empty", Kind.REFUSED, 400, "/validated", "{\"name\":\"\"}"),
          post("validated", "ok", Kind.STORED, 200, "/validated", "{\"name\":\"ok\"}"),
          post("reject", "r", Kind.STORED, 422, "/reject", null),
          post("fail", "f", Kind.UNSTORED, 503, "/fail", null),
          post("conflicting", "yes", Kind.UNSTORED, 409, "/conflicting?conflict=true", null),
          post("conflicting", "no", Kind.STORED, 201, "/conflicting?conflict=false", null),
          post("payments", "1", Kind.STORED, 200, "/accounts/1/payments", null),
          post("payments", "2", Kind.STORED, 200, "/accounts/2/payments", null),
          new Shape("receipts", "r", Kind.STORED, 200, "POST", "/receipts", null, "Accept", "*/*"),
          new Shape(
              "receipts", "r", Kind.STORED, 406, "POST", "/receipts", null, "Accept", "image/png"),
          form("10-bob", Kind.STORED, 200, "amount=10&to=bob"),
          form("10-bob", Kind.STORED, 200, "to=bob&amount=10"),
          form("1000-bob", Kind.STORED, 200, "amount=1000&to=bob"),
          form("bad", Kind.REFUSED_UNCLAIMED, 400, "amount=%zz&to=bob"),
          upload("hello", "b-1", "hello", true),
          upload("hello", "b-2", "hello", false),
          upload("bye", "b-3", "bye", true),
          // one handler on two paths and two methods: one operation, four requests
          post("charges", "post-a", Kind.STORED, 200, "/charges", null),
          post("charges", "post-b", Kind.STORED, 200, "/v2/charges", null),
          new Shape("charges", "patch-a", Kind.STORED, 200, "PATCH", "/charges", null));

  private static final String[] CALLERS = {null, "alice", "bob"};

  private final Http http;
  private final String run;
  private final IntSupplier runs;
  private final Map<List<String>, Stored> records = new HashMap<>();

  // A rendered answer is an error the stack renders anew for each request (a servlet container's
  // error page, sendError): its status is kept, its body follows the repeat's Accept and clock.
  private record Stored(
      String fingerprint, int status, String body, String contentType, boolean rendered) {}

  HttpModel(Http http, String run, IntSupplier runs) {
    this.http = http;
    this.run = run;
    this.runs = runs;
  }

  /** The seeds a CI run plays, or the one {@code idem.model.seed} names. */
  static List<Long> seeds() {
    Long chosen = Long.getLong("idem.model.seed");
    return chosen != null ? List.of(chosen) : List.of(1L, 2L, 3L);
  }

  static int steps() {
    return Integer.getInteger("idem.model.steps", 60);
  }

  /** Plays {@code steps} random steps from {@code seed}, checking each against the model. */
  void play(long seed, int steps) {
    Random random = new Random(seed);
    String[] keys = {run + "-a", run + "-b", run + "-c"};
    for (int step = 0; step < steps; step++) {
      Shape shape = SHAPES.get(random.nextInt(SHAPES.size()));
      String caller = CALLERS[random.nextInt(CALLERS.length)];
      String key = random.nextInt(20) == 0 ? null : keys[random.nextInt(keys.length)];
      int copies = random.nextInt(4) == 0 ? 2 + random.nextInt(3) : 1;
      String where =
          "seed %d step %d: %d x %s %s as %s with key %s"
              .formatted(seed, step, copies, shape.method(), shape.path(), caller, key);
      int before = runs.getAsInt();
      List<HttpResponse<String>> answers = send(shape, caller, key, copies);
      check(where, shape, caller, key, answers, runs.getAsInt() - before);
    }
  }

  private List<HttpResponse<String>> send(Shape shape, String caller, String key, int copies) {
    List<String> headers = new ArrayList<>(List.of("X-Run", run));
    if (key != null) {
      headers.addAll(List.of("Idempotency-Key", key));
    }
    if (caller != null) {
      headers.addAll(List.of("X-User", caller));
    }
    headers.addAll(List.of(shape.headers()));
    String[] all = headers.toArray(String[]::new);
    List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
    for (int i = 0; i < copies; i++) {
      sent.add(http.sendAsync(shape.method(), shape.path(), shape.body(), all));
    }
    return sent.stream().map(CompletableFuture::join).toList();
  }

  private void check(
      String where,
      Shape shape,
      String caller,
      String key,
      List<HttpResponse<String>> answers,
      int ran) {
    if (key == null || shape.kind() == Kind.REFUSED_UNCLAIMED) {
      for (HttpResponse<String> answer : answers) {
        assertThat(answer.statusCode()).as(where).isEqualTo(400);
        assertThat(replayed(answer)).as(where).isFalse();
      }
      assertThat(ran).as(where + ": handler runs").isZero();
      return;
    }
    List<String> slot = List.of(shape.operation(), String.valueOf(caller), key);
    Stored stored = records.get(slot);
    if (stored != null) {
      for (HttpResponse<String> answer : answers) {
        if (stored.fingerprint().equals(shape.fingerprint())) {
          assertThat(replayed(answer)).as(where + ": a replay").isTrue();
          assertThat(answer.statusCode()).as(where).isEqualTo(stored.status());
          if (!stored.rendered()) {
            assertThat(answer.body()).as(where).isEqualTo(stored.body());
            assertThat(answer.headers().firstValue("Content-Type").orElse(null))
                .as(where)
                .isEqualTo(stored.contentType());
          }
        } else {
          assertThat(answer.statusCode()).as(where + ": key reuse").isEqualTo(422);
          assertThat(answer.body()).as(where).contains("urn:idem:problem:key-reuse");
        }
      }
      assertThat(ran).as(where + ": handler runs").isZero();
      return;
    }
    List<HttpResponse<String>> fresh = new ArrayList<>();
    for (HttpResponse<String> answer : answers) {
      if (inProgress(answer)) {
        continue;
      }
      if (replayed(answer)) {
        assertThat(shape.kind())
            .as(where + ": a replay of an unstored answer")
            .isSameAs(Kind.STORED);
        continue;
      }
      assertThat(answer.statusCode()).as(where + ": " + answer.body()).isEqualTo(shape.status());
      fresh.add(answer);
    }
    assertThat(fresh).as(where + ": answers that ran or were refused").isNotEmpty();
    switch (shape.kind()) {
      case STORED -> {
        assertThat(fresh).as(where + ": the one first answer").hasSize(1);
        assertThat(ran).as(where + ": handler runs").isEqualTo(1);
        HttpResponse<String> first = fresh.get(0);
        for (HttpResponse<String> answer : answers) {
          if (replayed(answer)) {
            assertThat(answer.statusCode()).as(where).isEqualTo(first.statusCode());
            if (!shape.rendered()) {
              assertThat(answer.body()).as(where).isEqualTo(first.body());
            }
          }
        }
        records.put(
            slot,
            new Stored(
                shape.fingerprint(),
                first.statusCode(),
                first.body(),
                first.headers().firstValue("Content-Type").orElse(null),
                shape.rendered()));
      }
      case UNSTORED -> assertThat(ran).as(where + ": handler runs").isEqualTo(fresh.size());
      default -> assertThat(ran).as(where + ": handler runs").isZero();
    }
  }

  private static boolean replayed(HttpResponse<String> answer) {
    return answer.headers().firstValue("Idempotent-Replayed").isPresent();
  }

  private static boolean inProgress(HttpResponse<String> answer) {
    return answer.statusCode() == 409 && answer.body().contains("urn:idem:problem:in-progress");
  }

  private static Shape post(
      String operation, String fingerprint, Kind kind, int status, String path, String body) {
    return new Shape(operation, fingerprint, kind, status, "POST", path, body);
  }

  // an upload of a file and a note, with the note first or last
  private static Shape upload(
      String fingerprint, String boundary, String content, boolean noteFirst) {
    String note = "Content-Disposition: form-data; name=\"note\"\r\n\r\nfor alice\r\n";
    String file =
        "Content-Disposition: form-data; name=\"file\"; filename=\"report.txt\"\r\n"
            + "Content-Type: text/plain\r\n\r\n"
            + content
            + "\r\n";
    String body =
        "--%s\r\n%s--%s\r\n%s--%s--\r\n"
            .formatted(
                boundary, noteFirst ? note : file, boundary, noteFirst ? file : note, boundary);
    return new Shape(
        "uploads",
        fingerprint,
        Kind.STORED,
        200,
        "POST",
        "/uploads",
        body,
        "Content-Type",
        "multipart/form-data; boundary=" + boundary);
  }

  private static Shape form(String fingerprint, Kind kind, int status, String body) {
    return new Shape(
        "form-transfers",
        fingerprint,
        kind,
        status,
        "POST",
        "/form-transfers",
        body,
        "Content-Type",
        FORM);
  }
}
