package dev.idem.spring.web;

import dev.idem.spring.Idempotent;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;

/**
 * An {@code @Idempotent} bean method that the controllers of both stacks call inside a request, as
 * an application's service would: refunds keyed by their id. A test can hold the refunds of an id
 * until it releases them.
 */
public class Refunds {

  private static final CompletableFuture<Void> FREE = CompletableFuture.completedFuture(null);

  private final AtomicInteger runs = new AtomicInteger();
  private final Map<String, CompletableFuture<Void>> holds = new ConcurrentHashMap<>();

  /** Blocks while {@code id} is held; Spring MVC only. */
  @Idempotent(key = "#id", fingerprint = "#cents")
  public String refund(String id, int cents) {
    holds.getOrDefault(id, FREE).join();
    return answer(id, cents);
  }

  /** As {@link #refund}, without blocking; WebFlux. */
  @Idempotent(key = "#id", fingerprint = "#cents")
  public Mono<String> refundLater(String id, int cents) {
    return Mono.fromFuture(holds.getOrDefault(id, FREE))
        .then(Mono.fromSupplier(() -> answer(id, cents)));
  }

  void hold(String id) {
    holds.put(id, new CompletableFuture<>());
  }

  void release(String id) {
    CompletableFuture<Void> held = holds.remove(id);
    if (held != null) {
      held.complete(null);
    }
  }

  private String answer(String id, int cents) {
    return "refund " + id + " of " + cents + " #" + runs.incrementAndGet();
  }
}
