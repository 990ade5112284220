package dev.idem.spring.webflux.internal;

import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.codec.multipart.Part;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebExchangeDecorator;
import reactor.core.publisher.Mono;

/**
 * The exchange a guarded handler sees: the request's body is the one the filter read up front, and
 * so are its form fields and multipart parts. WebFlux's own exchange reads those from the body as
 * it came in, once, which the filter has already consumed.
 */
public final class ReplayedExchange extends ServerWebExchangeDecorator {

  private final Mono<MultiValueMap<String, String>> form;
  private final Mono<MultiValueMap<String, Part>> parts;

  private ReplayedExchange(ServerWebExchange exchange, BodyReaders readers) {
    super(exchange);
    ServerHttpRequest request = exchange.getRequest();
    MediaType type = contentType(request.getHeaders());
    this.form =
        type != null && MediaType.APPLICATION_FORM_URLENCODED.isCompatibleWith(type)
            ? readers.form(request).cache()
            : Mono.just(new LinkedMultiValueMap<>());
    this.parts =
        type != null && MediaType.MULTIPART_FORM_DATA.isCompatibleWith(type)
            ? readers.partsByName(request).cache()
            : Mono.just(new LinkedMultiValueMap<>());
  }

  /** {@code exchange} with {@code request} (whose body the filter read) and {@code response}. */
  public static ServerWebExchange of(
      ServerWebExchange exchange,
      ServerHttpRequest request,
      ServerHttpResponse response,
      BodyReaders readers) {
    return new ReplayedExchange(
        exchange.mutate().request(request).response(response).build(), readers);
  }

  @Override
  public Mono<MultiValueMap<String, String>> getFormData() {
    return form;
  }

  @Override
  public Mono<MultiValueMap<String, Part>> getMultipartData() {
    return parts;
  }

  private static @Nullable MediaType contentType(HttpHeaders headers) {
    try {
      return headers.getContentType();
    } catch (org.springframework.http.InvalidMediaTypeException e) {
      return null;
    }
  }
}
