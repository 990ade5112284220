package dev.idem.spring.web;

import dev.idem.spring.Idempotent;
import dev.idem.spring.InFlightWork;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import java.util.Map;
import org.slf4j.MDC;
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

/**
 * The Spring MVC handlers of the HTTP conformance suite, counted and held as {@link
 * ConformanceHandlers} says.
 */
@RestController
public class TestController extends ConformanceHandlers {

  /** A JSON request body; Spring refuses a malformed one before the handler runs. */
  public record Order(String item, int qty) {}

  private final InFlightWork inFlight;
  private final Refunds refunds;

  public TestController(InFlightWork inFlight, Refunds refunds) {
    this.inFlight = inFlight;
    this.refunds = refunds;
  }

  /** Not guarded itself: the refund bean method is. */
  @PostMapping("/refunds")
  String refund(@RequestParam(required = false) String id, @RequestParam int cents) {
    return refunds.refund(id, cents);
  }

  /** A guarded route whose handler calls the guarded refund bean method. */
  @Idempotent
  @PostMapping("/refund-orders")
  String refundOrder(@RequestParam String id, @RequestParam int cents) {
    return "order of " + refunds.refund(id, cents);
  }

  @Idempotent
  @PostMapping("/orders")
  ResponseEntity<String> create(@RequestHeader("X-Run") String run, @RequestBody Order order) {
    int n = count(run);
    return ResponseEntity.status(HttpStatus.CREATED)
        .contentType(MediaType.APPLICATION_JSON)
        .header("Location", "/orders/" + n)
        .header("ETag", "\"v" + n + "\"")
        .header("Set-Cookie", "session=" + n)
        .header("X-Not-Replayed", "x")
        .body(
            "{\"n\":" + n + ",\"item\":\"" + order.item() + "\",\"at\":" + System.nanoTime() + "}");
  }

  /** A PUT that opts in to protection with the annotation. */
  @Idempotent
  @PutMapping("/documents/{id}")
  String replace(@RequestHeader("X-Run") String run, @PathVariable("id") String id) {
    return "replaced " + id + " #" + count(run);
  }

  /** A PUT left unprotected: only an annotation opts a PUT in. */
  @PutMapping("/drafts/{id}")
  String draft(@RequestHeader("X-Run") String run, @PathVariable("id") String id) {
    return "draft " + id + " #" + count(run);
  }

  /** A body that must pass Bean Validation. */
  public record Named(@NotBlank String name) {}

  @Idempotent
  @PostMapping("/validated")
  String validated(@RequestHeader("X-Run") String run, @Valid @RequestBody Named named) {
    return named.name() + " " + count(run);
  }

  @Idempotent
  @PatchMapping("/orders/{id}")
  String update(@RequestHeader("X-Run") String run, @PathVariable("id") String id) {
    return id + ":" + count(run) + ":" + System.nanoTime();
  }

  @GetMapping("/orders")
  String list(@RequestHeader("X-Run") String run) {
    return "list " + count(run);
  }

  @Idempotent
  @PostMapping("/slow")
  String slow(@RequestHeader("X-Run") String run) throws InterruptedException {
    int n = count(run);
    awaitRelease(run);
    return "slow " + n + " " + System.nanoTime();
  }

  @Idempotent(waitFor = "20s")
  @PostMapping("/slow-wait")
  String slowWait(@RequestHeader("X-Run") String run) throws InterruptedException {
    return slow(run);
  }

  @Idempotent
  @PostMapping("/fail")
  ResponseEntity<String> fail(@RequestHeader("X-Run") String run) {
    return ResponseEntity.status(503).body("down " + count(run));
  }

  @Idempotent
  @PostMapping("/reject")
  ResponseEntity<String> reject(@RequestHeader("X-Run") String run) {
    return ResponseEntity.status(422).body("refused " + count(run) + " " + System.nanoTime());
  }

  @Idempotent
  @PostMapping("/big")
  String big(@RequestHeader("X-Run") String run, @RequestParam("size") int size) {
    count(run);
    return "b".repeat(size);
  }

  @Idempotent(ignoreFields = {"requestedAt", "meta.traceId"})
  @PostMapping("/stamped")
  String stamped(@RequestHeader("X-Run") String run, @RequestBody Map<String, Object> body) {
    return "stamped " + count(run) + " " + System.nanoTime();
  }

  @Idempotent(operation = "stamped-by-policy")
  @PostMapping("/stamped-by-policy")
  String stampedByPolicy(
      @RequestHeader("X-Run") String run, @RequestBody Map<String, Object> body) {
    return "stamped " + count(run) + " " + System.nanoTime();
  }

  @Idempotent
  @PostMapping("/inflight")
  String inFlight(@RequestHeader("X-Run") String run) {
    count(run);
    return Integer.toString(inFlight.count());
  }

  @Idempotent
  @PostMapping("/mdc")
  String mdc(@RequestHeader("X-Run") String run) {
    count(run);
    return String.valueOf(MDC.get("idem.key"));
  }

  @Idempotent(required = false)
  @PostMapping("/optional")
  String optional(@RequestHeader("X-Run") String run) {
    return "optional " + count(run);
  }

  /**
   * An export sent compressed, as an attachment, in a language: headers that give the body meaning.
   */
  @Idempotent
  @PostMapping("/exports")
  ResponseEntity<byte[]> export(@RequestHeader("X-Run") String run) {
    return ResponseEntity.ok()
        .header("Content-Encoding", "gzip")
        .header("Content-Disposition", "attachment; filename=\"export.txt\"")
        .header("Content-Language", "de")
        .contentType(MediaType.TEXT_PLAIN)
        .body(ConformanceHandlers.gzip("export #" + count(run)));
  }

  /** An asynchronous answer behind a declared type that does not show it. */
  @Idempotent
  @PostMapping("/deferred")
  Object deferred(@RequestHeader("X-Run") String run) {
    org.springframework.web.context.request.async.DeferredResult<ResponseEntity<String>> result =
        new org.springframework.web.context.request.async.DeferredResult<>();
    int n = count(run);
    java.util.concurrent.CompletableFuture.runAsync(
        () ->
            result.setResult(
                ResponseEntity.status(HttpStatus.CREATED)
                    .header("Location", "/deferred/" + n)
                    .body("deferred #" + n)),
        java.util.concurrent.CompletableFuture.delayedExecutor(
            50, java.util.concurrent.TimeUnit.MILLISECONDS));
    return result;
  }

  /** Writes past the body limit, then fails: part of its answer has reached the client. */
  @Idempotent
  @PostMapping("/stream-then-fail")
  void streamThenFail(@RequestHeader("X-Run") String run, HttpServletResponse response)
      throws Exception {
    count(run);
    response.setContentType("text/plain");
    response
        .getOutputStream()
        .write("a".repeat(4096).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    response.getOutputStream().flush();
    throw new IllegalStateException("failed after its answer began to go out");
  }

  /** Writes past the body limit, then waits for the test before it writes the rest. */
  @Idempotent
  @PostMapping("/stream")
  void stream(@RequestHeader("X-Run") String run, HttpServletResponse response) throws Exception {
    count(run);
    response.setContentType("text/plain");
    java.io.OutputStream out = response.getOutputStream();
    out.write("a".repeat(4096).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    out.flush();
    awaitRelease(run);
    out.write("b".repeat(4096).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
  }

  /** One handler reached on two paths and two methods: one operation whatever the route. */
  @Idempotent
  @org.springframework.web.bind.annotation.RequestMapping(
      path = {"/charges", "/v2/charges"},
      method = {
        org.springframework.web.bind.annotation.RequestMethod.POST,
        org.springframework.web.bind.annotation.RequestMethod.PATCH
      })
  String charge(@RequestHeader("X-Run") String run) {
    return "charged #" + count(run);
  }

  /** Reads its amount from the query: a key reused with another amount is key reuse. */
  @Idempotent
  @PostMapping("/transfers")
  String transfer(@RequestHeader("X-Run") String run, @RequestParam("amount") long amount) {
    return "moved " + amount + " #" + count(run);
  }

  @PostMapping("/plain")
  String plain(@RequestHeader("X-Run") String run) {
    return "plain " + count(run);
  }

  @Idempotent
  @PostMapping("/accounts/{id}/payments")
  String pay(@RequestHeader("X-Run") String run, @PathVariable("id") String id) {
    return "paid " + id + " " + count(run);
  }

  /** Answers 409 when asked to; the policy names 409 retryable, so it is not stored. */
  @Idempotent(operation = "conflicting")
  @PostMapping("/conflicting")
  ResponseEntity<String> conflicting(
      @RequestHeader("X-Run") String run, @RequestParam("conflict") boolean conflict) {
    int n = count(run);
    return ResponseEntity.status(conflict ? 409 : 201).body("conflicting " + n);
  }

  @Idempotent
  @PostMapping("/key-attribute")
  String keyAttribute(@RequestHeader("X-Run") String run, HttpServletRequest request) {
    count(run);
    return String.valueOf(request.getAttribute(IdempotencyFilter.KEY_ATTRIBUTE));
  }

  @PostMapping("/by-path/{name}")
  String byPath(@RequestHeader("X-Run") String run, @PathVariable("name") String name) {
    return name + " " + count(run) + " " + System.nanoTime();
  }

  /** Answers a record that only a JSON converter writes: a client accepting images gets 406. */
  @Idempotent
  @PostMapping("/receipts")
  Map<String, Object> receipt(@RequestHeader("X-Run") String run) {
    return Map.of("receipt", count(run));
  }

  /** Charges, then refuses its own input as Spring refuses a malformed request. */
  @Idempotent
  @PostMapping("/charge-then-refuse")
  String chargeThenRefuse(@RequestHeader("X-Run") String run)
      throws org.springframework.web.bind.ServletRequestBindingException {
    count(run);
    throw new org.springframework.web.bind.ServletRequestBindingException("refused after charging");
  }

  /** A transfer sent as a form. */
  @Idempotent
  @PostMapping(value = "/form-transfers", consumes = "application/x-www-form-urlencoded")
  String formTransfer(
      @RequestHeader("X-Run") String run,
      @RequestParam("amount") long amount,
      @RequestParam("to") String to) {
    return "moved " + amount + " to " + to + " #" + count(run);
  }

  /** A file upload with a field beside it. */
  @Idempotent
  @PostMapping(value = "/uploads", consumes = "multipart/form-data")
  String upload(
      @RequestHeader("X-Run") String run,
      @org.springframework.web.bind.annotation.RequestPart("file")
          org.springframework.web.multipart.MultipartFile file,
      @RequestParam("note") String note) {
    return "stored "
        + file.getOriginalFilename()
        + " ("
        + file.getSize()
        + " bytes) "
        + note
        + " #"
        + count(run);
  }
}
