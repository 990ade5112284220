package dev.idem.spring.web;

import dev.idem.spring.Idempotent;
import dev.idem.spring.InFlightWork;
import jakarta.validation.Valid;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The WebFlux handlers of the WebFlux conformance suite: as {@link TestController}'s, answering
 * with {@code Mono}s and never blocking an event loop (the held ones wait on a worker).
 */
@RestController
public class WebFluxTestController extends ConformanceHandlers {

  private final InFlightWork inFlight;
  private final Refunds refunds;

  public WebFluxTestController(InFlightWork inFlight, Refunds refunds) {
    this.inFlight = inFlight;
    this.refunds = refunds;
  }

  /** Not guarded itself: the refund bean method is. */
  @PostMapping("/refunds")
  Mono<String> refund(@RequestParam(required = false) String id, @RequestParam int cents) {
    return refunds.refundLater(id, cents);
  }

  /** A guarded route whose handler calls the guarded refund bean method. */
  @Idempotent
  @PostMapping("/refund-orders")
  Mono<String> refundOrder(@RequestParam String id, @RequestParam int cents) {
    return refunds.refundLater(id, cents).map(refund -> "order of " + refund);
  }

  @Idempotent
  @PostMapping("/orders")
  Mono<ResponseEntity<String>> create(
      @RequestHeader("X-Run") String run, @RequestBody TestController.Order order) {
    // a plain body argument: a malformed one is refused before the handler runs
    return Mono.just(order)
        .map(
            o -> {
              int n = count(run);
              return ResponseEntity.status(HttpStatus.CREATED)
                  .contentType(MediaType.APPLICATION_JSON)
                  .header("Location", "/orders/" + n)
                  .header("ETag", "\"v" + n + "\"")
                  .header("Set-Cookie", "session=" + n)
                  .header("X-Not-Replayed", "x")
                  .body(
                      "{\"n\":"
                          + n
                          + ",\"item\":\""
                          + o.item()
                          + "\",\"at\":"
                          + System.nanoTime()
                          + "}");
            });
  }

  @Idempotent
  @PutMapping("/documents/{id}")
  Mono<String> replace(@RequestHeader("X-Run") String run, @PathVariable("id") String id) {
    return Mono.fromSupplier(() -> "replaced " + id + " #" + count(run));
  }

  @Idempotent
  @PostMapping("/validated")
  Mono<String> validated(
      @RequestHeader("X-Run") String run, @Valid @RequestBody TestController.Named named) {
    return Mono.fromSupplier(() -> named.name() + " " + count(run));
  }

  /** Charges, then refuses its own input as WebFlux refuses a malformed request. */
  @Idempotent
  @PostMapping("/charge-then-refuse")
  Mono<String> chargeThenRefuse(@RequestHeader("X-Run") String run) {
    count(run);
    throw new org.springframework.web.server.ServerWebInputException("refused after charging");
  }

  /** Charges, then reads its body in its own pipeline: a malformed body is refused after. */
  @Idempotent
  @PostMapping("/charge-then-read")
  Mono<String> chargeThenRead(
      @RequestHeader("X-Run") String run, @RequestBody Mono<TestController.Order> order) {
    int charge = count(run);
    return order.map(o -> "charged #" + charge + " for " + o.item());
  }

  @GetMapping("/orders")
  Mono<String> list(@RequestHeader("X-Run") String run) {
    return Mono.fromSupplier(() -> "list " + count(run));
  }

  /**
   * An export sent compressed, as an attachment, in a language: headers that give the body meaning.
   */
  @Idempotent
  @PostMapping("/exports")
  Mono<ResponseEntity<byte[]>> export(@RequestHeader("X-Run") String run) {
    return Mono.fromSupplier(
        () ->
            ResponseEntity.ok()
                .header("Content-Encoding", "gzip")
                .header("Content-Disposition", "attachment; filename=\"export.txt\"")
                .header("Content-Language", "de")
                .contentType(MediaType.TEXT_PLAIN)
                .body(ConformanceHandlers.gzip("export #" + count(run))));
  }

  /** Writes past the body limit, then fails: part of its answer has reached the client. */
  @Idempotent
  @PostMapping(value = "/stream-then-fail", produces = "text/plain")
  Flux<String> streamThenFail(@RequestHeader("X-Run") String run) {
    return Flux.concat(
        Mono.fromSupplier(
            () -> {
              count(run);
              return "a".repeat(4096);
            }),
        Mono.error(new IllegalStateException("failed after its answer began to go out")));
  }

  /** Writes past the body limit, then waits for the test before it writes the rest. */
  @Idempotent
  @PostMapping(value = "/stream", produces = "text/plain")
  Flux<String> stream(@RequestHeader("X-Run") String run) {
    return Flux.concat(
        Mono.fromSupplier(
            () -> {
              count(run);
              return "a".repeat(4096);
            }),
        Mono.fromFuture(released(run)).then(Mono.fromSupplier(() -> "b".repeat(4096))));
  }

  /** One handler reached on two paths and two methods: one operation whatever the route. */
  @Idempotent
  @org.springframework.web.bind.annotation.RequestMapping(
      path = {"/charges", "/v2/charges"},
      method = {
        org.springframework.web.bind.annotation.RequestMethod.POST,
        org.springframework.web.bind.annotation.RequestMethod.PATCH
      })
  Mono<String> charge(@RequestHeader("X-Run") String run) {
    return Mono.fromSupplier(() -> "charged #" + count(run));
  }

  @Idempotent
  @PostMapping("/transfers")
  Mono<String> transfer(@RequestHeader("X-Run") String run, @RequestParam("amount") long amount) {
    return Mono.fromSupplier(() -> "moved " + amount + " #" + count(run));
  }

  @PostMapping("/plain")
  Mono<String> plain(@RequestHeader("X-Run") String run) {
    return Mono.fromSupplier(() -> "plain " + count(run));
  }

  @PutMapping("/drafts/{id}")
  Mono<String> draft(@RequestHeader("X-Run") String run, @PathVariable("id") String id) {
    return Mono.fromSupplier(() -> "draft " + id + " #" + count(run));
  }

  @Idempotent
  @PostMapping("/slow")
  Mono<String> slow(@RequestHeader("X-Run") String run) {
    return Mono.fromCallable(
            () -> {
              int n = count(run);
              awaitRelease(run);
              return "slow " + n + " " + System.nanoTime();
            })
        .subscribeOn(Schedulers.boundedElastic());
  }

  @Idempotent(waitFor = "20s")
  @PostMapping("/slow-wait")
  Mono<String> slowWait(@RequestHeader("X-Run") String run) {
    return slow(run);
  }

  @Idempotent
  @PostMapping("/fail")
  Mono<ResponseEntity<String>> fail(@RequestHeader("X-Run") String run) {
    return Mono.fromSupplier(() -> ResponseEntity.status(503).body("down " + count(run)));
  }

  @Idempotent
  @PostMapping("/reject")
  Mono<ResponseEntity<String>> reject(@RequestHeader("X-Run") String run) {
    return Mono.fromSupplier(
        () -> ResponseEntity.status(422).body("refused " + count(run) + " " + System.nanoTime()));
  }

  @Idempotent
  @PostMapping("/big")
  Mono<String> big(@RequestHeader("X-Run") String run, @RequestParam("size") int size) {
    return Mono.fromSupplier(
        () -> {
          count(run);
          return "b".repeat(size);
        });
  }

  @Idempotent(ignoreFields = {"requestedAt", "meta.traceId"})
  @PostMapping("/stamped")
  Mono<String> stamped(
      @RequestHeader("X-Run") String run, @RequestBody Mono<Map<String, Object>> body) {
    return body.map(b -> "stamped " + count(run) + " " + System.nanoTime());
  }

  @Idempotent(operation = "stamped-by-policy")
  @PostMapping("/stamped-by-policy")
  Mono<String> stampedByPolicy(
      @RequestHeader("X-Run") String run, @RequestBody Mono<Map<String, Object>> body) {
    return body.map(b -> "stamped " + count(run) + " " + System.nanoTime());
  }

  @Idempotent
  @PostMapping("/accounts/{id}/payments")
  Mono<String> pay(@RequestHeader("X-Run") String run, @PathVariable("id") String id) {
    return Mono.fromSupplier(() -> "paid " + id + " " + count(run));
  }

  @Idempotent
  @PatchMapping("/orders/{id}")
  Mono<String> amend(@RequestHeader("X-Run") String run, @PathVariable("id") String id) {
    return Mono.fromSupplier(() -> "amended " + id + " #" + count(run));
  }

  /** Answers 409 when asked to; the policy names 409 retryable, so it is not stored. */
  @Idempotent(operation = "conflicting")
  @PostMapping("/conflicting")
  Mono<ResponseEntity<String>> conflicting(
      @RequestHeader("X-Run") String run, @RequestParam("conflict") boolean conflict) {
    return Mono.fromSupplier(
        () -> ResponseEntity.status(conflict ? 409 : 201).body("conflicting " + count(run)));
  }

  @Idempotent
  @PostMapping("/inflight")
  Mono<String> inFlight(@RequestHeader("X-Run") String run) {
    return Mono.fromSupplier(
        () -> {
          count(run);
          return Integer.toString(inFlight.count());
        });
  }

  @Idempotent
  @PostMapping("/key-attribute")
  Mono<String> keyAttribute(@RequestHeader("X-Run") String run, ServerWebExchange exchange) {
    return Mono.fromSupplier(
        () -> {
          count(run);
          Object attribute = exchange.getAttribute(IdempotencyFilter.KEY_ATTRIBUTE);
          return String.valueOf(attribute);
        });
  }

  @Idempotent(required = false)
  @PostMapping("/optional")
  Mono<String> optional(@RequestHeader("X-Run") String run) {
    return Mono.fromSupplier(() -> "optional " + count(run));
  }

  /** Blocks the event loop it runs on: BlockHound must turn this into a 500. */
  @PostMapping("/blocking")
  Mono<String> blocking() throws InterruptedException {
    Thread.sleep(1);
    return Mono.just("blocked");
  }

  /** Answers a record that only a JSON encoder writes: a client accepting images gets 406. */
  @Idempotent
  @PostMapping("/receipts")
  Mono<Map<String, Object>> receipt(@RequestHeader("X-Run") String run) {
    Map<String, Object> receipt = Map.of("receipt", count(run));
    return Mono.just(receipt);
  }

  /** A transfer sent as a form. */
  @Idempotent
  @PostMapping(value = "/form-transfers", consumes = "application/x-www-form-urlencoded")
  Mono<String> formTransfer(@RequestHeader("X-Run") String run, ServerWebExchange exchange) {
    return exchange
        .getFormData()
        .map(
            form ->
                "moved "
                    + form.getFirst("amount")
                    + " to "
                    + form.getFirst("to")
                    + " #"
                    + count(run));
  }

  /** A file upload with a field beside it. */
  @Idempotent
  @PostMapping(value = "/uploads", consumes = "multipart/form-data")
  Mono<String> upload(
      @RequestHeader("X-Run") String run,
      @org.springframework.web.bind.annotation.RequestPart("file")
          org.springframework.http.codec.multipart.FilePart file,
      @org.springframework.web.bind.annotation.RequestPart("note") String note) {
    return org.springframework.core.io.buffer.DataBufferUtils.join(file.content())
        .map(
            content -> {
              int size = content.readableByteCount();
              org.springframework.core.io.buffer.DataBufferUtils.release(content);
              return "stored "
                  + file.filename()
                  + " ("
                  + size
                  + " bytes) "
                  + note
                  + " #"
                  + count(run);
            });
  }
}
