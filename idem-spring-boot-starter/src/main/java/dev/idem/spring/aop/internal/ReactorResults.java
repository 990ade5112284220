package dev.idem.spring.aop.internal;

import dev.idem.core.Executed;
import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.OutcomeTooLargeException;
import dev.idem.core.ResultCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The Reactor side of {@link LaterResults}, loaded only when a method returns a {@code Mono} or a
 * {@code Flux}. Nothing runs before subscription. The method's publisher is subscribed by the
 * engine, with the subscriber's context, and not by the subscriber: cancelling it leaves the work
 * to end and its outcome stored. A {@code Flux} is collected whole before its elements are emitted,
 * and at most {@code idem.async.max-elements} of them are kept.
 */
final class ReactorResults {

  private ReactorResults() {}

  static Mono<Object> mono(
      LaterResults later,
      MethodPlan plan,
      IdempotencyKey key,
      Fingerprint fingerprint,
      Callable<Object> method) {
    return later
        .reactive()
        .<@Nullable Object>executeWithStatus(
            later.call(key, fingerprint).codec(plan.codec()).config(plan.config()),
            ctx -> ReactorResults.<Mono<Object>>publisher(method, "Mono"))
        .mapNotNull(Executed::value);
  }

  @SuppressWarnings("unchecked")
  static Flux<Object> flux(
      LaterResults later,
      MethodPlan plan,
      IdempotencyKey key,
      Fingerprint fingerprint,
      Callable<Object> method) {
    int max = later.maxElements();
    return later
        .reactive()
        .<@Nullable Object>executeWithStatus(
            later.call(key, fingerprint).codec(new Bounded(plan.codec())).config(plan.config()),
            ctx ->
                ReactorResults.<Flux<Object>>publisher(method, "Flux")
                    .collect(() -> new Collected(max), Collected::add)
                    .map(Collected::result))
        .mapNotNull(Executed::value)
        .flatMapMany(
            value ->
                value instanceof Overflow overflow
                    ? Flux.error(overflow.refusal())
                    : Flux.fromIterable((List<Object>) value));
  }

  static Object failed(MethodPlan plan, RuntimeException failure) {
    return plan.shape() == ResultShape.FLUX ? Flux.error(failure) : Mono.error(failure);
  }

  @SuppressWarnings("unchecked")
  private static <P> P publisher(Callable<Object> method, String type) throws Exception {
    Object result = method.call();
    if (result == null) {
      throw new IllegalStateException("an @Idempotent method returned a null " + type);
    }
    return (P) result;
  }

  /** The elements so far: the first {@code max} kept, the rest only counted. */
  private static final class Collected {
    private final int max;
    private final List<Object> kept = new ArrayList<>();
    private int count;

    Collected(int max) {
      this.max = max;
    }

    void add(Object element) {
      count++;
      if (count <= max) {
        kept.add(element);
      }
    }

    Object result() {
      return count > max ? new Overflow(count, max) : kept;
    }
  }

  /** A {@code Flux} that gave more elements than are kept. */
  private record Overflow(int count, int max) {
    OutcomeTooLargeException refusal() {
      return new OutcomeTooLargeException(
          "the Flux gave " + count + " elements, over idem.async.max-elements of " + max,
          count,
          max);
    }
  }

  /** The method's codec, refusing an overflow as too large: the work ran, so the key is kept. */
  private record Bounded(ResultCodec<@Nullable Object> codec)
      implements ResultCodec<@Nullable Object> {
    @Override
    public byte[] encode(@Nullable Object value) {
      if (value instanceof Overflow overflow) {
        throw overflow.refusal();
      }
      return codec.encode(value);
    }

    @Override
    public @Nullable Object decode(byte[] bytes) {
      return codec.decode(bytes);
    }

    @Override
    public Duration retention(@Nullable Object value, Duration retention) {
      return value instanceof Overflow ? retention : codec.retention(value, retention);
    }

    @Override
    public byte[] encodeFailure(Throwable failure) {
      return codec.encodeFailure(failure);
    }

    @Override
    public RuntimeException decodeFailure(byte[] bytes) {
      return codec.decodeFailure(bytes);
    }
  }
}
