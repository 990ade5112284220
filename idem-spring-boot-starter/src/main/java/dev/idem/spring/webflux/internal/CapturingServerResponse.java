package dev.idem.spring.webflux.internal;

import dev.idem.spring.web.internal.HttpRules;
import dev.idem.spring.web.internal.StoredResponse;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The handler's answer, held back: its body is gathered here instead of going out, so that the
 * answer is stored before the client sees it. Status and headers are set on the real response,
 * which is not committed until {@link #commit()}. A body that grows past the limit of what is
 * stored is not held any longer: what was gathered goes out first and the rest passes straight
 * through, so an answer of any size costs no more memory than the limit; it is then stored as the
 * not-replayable mark.
 */
public final class CapturingServerResponse extends ServerHttpResponseDecorator
    implements HttpRules.Answer {

  private final long limit;
  private final AtomicLong size = new AtomicLong();
  private volatile byte @Nullable [] body;
  private volatile boolean passedThrough;

  /**
   * @param limit the most body bytes held; past it the body passes through
   */
  public CapturingServerResponse(ServerHttpResponse delegate, long limit) {
    super(delegate);
    this.limit = limit;
  }

  @Override
  public Mono<Void> writeWith(Publisher<? extends DataBuffer> content) {
    // the buffers up to the one that crosses the limit come as one list, each later one alone
    // each pooled buffer is copied onto the heap as it comes and given back at once: a buffer that
    // an operator below discards on a cancel racing the end (and releases) is then only a copy,
    // never one the pool may already have handed to another request while it is still read
    Flux<List<DataBuffer>> parts =
        Flux.<DataBuffer>from(content)
            .map(CapturingServerResponse::onHeap)
            .bufferUntil(buffer -> size.addAndGet(buffer.readableByteCount()) > limit);
    return parts
        .switchOnFirst(
            (first, all) -> {
              if (size.get() > limit) {
                passedThrough = true;
                return getDelegate()
                    .writeWith(all.concatMapIterable(list -> list))
                    .thenMany(Flux.<List<DataBuffer>>empty());
              }
              return all.doOnNext(this::hold).thenMany(Flux.<List<DataBuffer>>empty());
            })
        // buffers gathered but never held or sent (an error or a cancel part-way) go back to
        // their pool
        .doOnDiscard(DataBuffer.class, DataBufferUtils::release)
        .doOnDiscard(List.class, CapturingServerResponse::releaseAll)
        .then();
  }

  private static DataBuffer onHeap(DataBuffer buffer) {
    try {
      byte[] copy = new byte[buffer.readableByteCount()];
      buffer.read(copy);
      return DefaultDataBufferFactory.sharedInstance.wrap(copy);
    } finally {
      DataBufferUtils.release(buffer);
    }
  }

  private static void releaseAll(List<?> discarded) {
    for (Object buffer : discarded) {
      if (buffer instanceof DataBuffer data) {
        DataBufferUtils.release(data);
      }
    }
  }

  /** True once part of the answer has gone to the client while the handler was still at work. */
  public boolean passedThrough() {
    return passedThrough;
  }

  // Copied and released at once, so that no later operator sees (and discards, releasing it
  // again) a buffer the pool may already have handed to another request.
  private void hold(List<DataBuffer> buffers) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (DataBuffer buffer : buffers) {
      byte[] copy = new byte[buffer.readableByteCount()];
      buffer.read(copy);
      DataBufferUtils.release(buffer);
      bytes.writeBytes(copy);
    }
    body = bytes.toByteArray();
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

  /** The body's size in bytes so far, held or passed through. */
  @Override
  public long bodySize() {
    return size.get();
  }

  /** The answer as stored: status, the allow-listed headers and the body. */
  @Override
  public StoredResponse snapshot() {
    byte[] bytes = body;
    return new StoredResponse(status(), headers(), bytes == null ? new byte[0] : bytes, null, 0);
  }

  /** The answer with its body left out, for one too large to keep. */
  @Override
  public StoredResponse snapshotWithoutBody() {
    return new StoredResponse(status(), headers(), new byte[0], null, Math.max(1, bodySize()));
  }

  /** The status the handler set, 200 when it set none. */
  @Override
  public int status() {
    HttpStatusCode status = getStatusCode();
    return status == null ? 200 : status.value();
  }

  @Override
  public @Nullable String retryAfter() {
    return getHeaders().getFirst(org.springframework.http.HttpHeaders.RETRY_AFTER);
  }

  /** Sends the held answer to the client; one that passed through has gone out already. */
  public Mono<Void> commit() {
    if (passedThrough) {
      return Mono.empty();
    }
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
