package dev.idem.spring.webflux.internal;

import dev.idem.spring.web.internal.StoredResponse;
import java.util.List;
import java.util.Map;
import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The handler's answer, held back: its body is gathered here instead of going out, so that the
 * answer is stored before the client sees it. Status and headers are set on the real response,
 * which is not committed until {@link #commit()}.
 */
public final class CapturedResponse extends ServerHttpResponseDecorator {

  private volatile byte[] body;

  public CapturedResponse(ServerHttpResponse delegate) {
    super(delegate);
  }

  @Override
  public Mono<Void> writeWith(Publisher<? extends DataBuffer> content) {
    // copied and released in map, so that no later operator sees (and discards, releasing it
    // again) a buffer the pool may already have handed to another request
    return DataBufferUtils.join(Flux.from(content))
        .map(
            joined -> {
              byte[] bytes = new byte[joined.readableByteCount()];
              joined.read(bytes);
              DataBufferUtils.release(joined);
              return bytes;
            })
        .doOnNext(bytes -> body = bytes)
        .then();
  }

  @Override
  public Mono<Void> writeAndFlushWith(
      Publisher<? extends Publisher<? extends DataBuffer>> content) {
    return writeWith(Flux.from(content).concatMap(Flux::from));
  }

  @Override
  public Mono<Void> setComplete() {
    return Mono.empty();
  }

  /** The body's size in bytes so far. */
  public int bodySize() {
    byte[] bytes = body;
    return bytes == null ? 0 : bytes.length;
  }

  /** The answer as stored: status, the allow-listed headers and the body. */
  public StoredResponse snapshot() {
    byte[] bytes = body;
    return new StoredResponse(status(), headers(), bytes == null ? new byte[0] : bytes, null, 0);
  }

  /** The answer with its body left out, for one too large to keep. */
  public StoredResponse snapshotWithoutBody() {
    return new StoredResponse(status(), headers(), new byte[0], null, Math.max(1, bodySize()));
  }

  /** The status the handler set, 200 when it set none. */
  public int status() {
    HttpStatusCode status = getStatusCode();
    return status == null ? 200 : status.value();
  }

  /** Sends the held answer to the client. */
  public Mono<Void> commit() {
    byte[] bytes = body;
    ServerHttpResponse real = getDelegate();
    if (bytes == null) {
      return real.setComplete();
    }
    return real.writeWith(Mono.fromSupplier(() -> real.bufferFactory().wrap(bytes)));
  }

  private List<Map.Entry<String, String>> headers() {
    return StoredResponse.replayedHeaders(getHeaders()::getOrEmpty);
  }
}
