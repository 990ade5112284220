package dev.idem.bench;

import dev.idem.spring.Idempotent;
import java.net.URI;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The measured endpoint: reads a small JSON order and answers 201 with a small JSON receipt and a
 * {@code Location}. Its work is fixed and small, so that what the starter adds shows. It counts its
 * runs, which lets the benchmark check that first calls run it and replays do not.
 */
@RestController
public class HttpBenchController {

  /** The path of the endpoint. */
  static final String PATH = "/orders";

  /** The request body every virtual user sends. */
  static final String BODY =
      "{\"item\":\"tea\",\"qty\":2,\"customer\":\"c-42\",\"currency\":\"EUR\"}";

  private static final long PRICE_CENTS = 350;

  private final AtomicLong ids = new AtomicLong();
  private final LongAdder runs = new LongAdder();

  /** An order as the client sends it. */
  public record Order(String item, int qty, String customer, String currency) {}

  /** The answer. */
  public record Receipt(String id, String item, int qty, long totalCents, String currency) {}

  @Idempotent(operation = "bench-orders")
  @PostMapping(PATH)
  ResponseEntity<Receipt> order(@RequestBody Order order) {
    runs.increment();
    String id = "o-" + ids.incrementAndGet();
    Receipt receipt =
        new Receipt(id, order.item(), order.qty(), order.qty() * PRICE_CENTS, order.currency());
    return ResponseEntity.created(URI.create(PATH + "/" + id)).body(receipt);
  }

  /** How many times the handler ran. */
  long runs() {
    return runs.sum();
  }
}
