package dev.idem.spring.webflux.internal;

import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;
import reactor.core.publisher.Mono;

/**
 * Answers an error through the application's {@link WebExceptionHandler}s, in their order, as
 * WebFlux does once an error has left every filter: the first that handles it writes the answer.
 * The handlers are looked up on first use, since some of them are built after the filter.
 */
public final class ErrorAnswers {

  private final Supplier<List<WebExceptionHandler>> lookup;
  private volatile @Nullable List<WebExceptionHandler> handlers;

  public ErrorAnswers(Supplier<List<WebExceptionHandler>> lookup) {
    this.lookup = lookup;
  }

  /** Writes the answer to {@code error} on {@code exchange}; fails with the error none handled. */
  public Mono<Void> answer(ServerWebExchange exchange, Throwable error) {
    Mono<Void> answered = Mono.error(error);
    for (WebExceptionHandler handler : handlers()) {
      answered = answered.onErrorResume(e -> handler.handle(exchange, e));
    }
    return answered;
  }

  private List<WebExceptionHandler> handlers() {
    List<WebExceptionHandler> known = handlers;
    if (known == null) {
      known = List.copyOf(lookup.get());
      handlers = known;
    }
    return known;
  }
}
