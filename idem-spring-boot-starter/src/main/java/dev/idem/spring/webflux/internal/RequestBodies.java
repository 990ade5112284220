package dev.idem.spring.webflux.internal;

import java.util.Optional;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A request body read up front, to fingerprint it before the claim, and served again to the handler
 * from memory.
 */
public final class RequestBodies {

  private RequestBodies() {}

  /**
   * The body of {@code request}; an empty optional when it is longer than {@code maxBytes} (by its
   * declared length, or as read).
   */
  public static Mono<Optional<byte[]>> read(ServerHttpRequest request, long maxBytes) {
    long declared = request.getHeaders().getContentLength();
    if (declared > maxBytes) {
      return Mono.just(Optional.empty());
    }
    int limit = (int) Math.min(Integer.MAX_VALUE - 8, maxBytes);
    return DataBufferUtils.join(request.getBody(), limit)
        .map(
            joined -> {
              byte[] bytes = new byte[joined.readableByteCount()];
              joined.read(bytes);
              DataBufferUtils.release(joined);
              return Optional.of(bytes);
            })
        .defaultIfEmpty(Optional.of(new byte[0]))
        .onErrorResume(DataBufferLimitException.class, e -> Mono.just(Optional.empty()));
  }

  /** {@code request} whose body is {@code body}, as often as it is read. */
  public static ServerHttpRequest replaying(ServerHttpRequest request, byte[] body) {
    return new ServerHttpRequestDecorator(request) {
      @Override
      public Flux<DataBuffer> getBody() {
        return Flux.defer(() -> Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(body)));
      }
    };
  }
}
