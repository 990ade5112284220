package dev.idem.spring.webflux.internal;

import java.util.Map;
import org.springframework.core.ResolvableType;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.codec.FormHttpMessageReader;
import org.springframework.http.codec.multipart.DefaultPartHttpMessageReader;
import org.springframework.http.codec.multipart.MultipartHttpMessageReader;
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

  private static final ResolvableType FORM =
      ResolvableType.forClassWithGenerics(MultiValueMap.class, String.class, String.class);
  private static final ResolvableType PARTS =
      ResolvableType.forClassWithGenerics(MultiValueMap.class, String.class, Part.class);

  private final Mono<MultiValueMap<String, String>> form;
  private final Mono<MultiValueMap<String, Part>> parts;

  private ReplayedExchange(ServerWebExchange exchange, int maxInMemory) {
    super(exchange);
    ServerHttpRequest request = exchange.getRequest();
    MediaType type = contentType(request.getHeaders());
    FormHttpMessageReader forms = new FormHttpMessageReader();
    forms.setMaxInMemorySize(maxInMemory);
    this.form =
        type != null && MediaType.APPLICATION_FORM_URLENCODED.isCompatibleWith(type)
            ? forms.readMono(FORM, request, Map.of()).cache()
            : Mono.just(new LinkedMultiValueMap<>());
    DefaultPartHttpMessageReader partReader = new DefaultPartHttpMessageReader();
    partReader.setMaxInMemorySize(maxInMemory);
    this.parts =
        type != null && MediaType.MULTIPART_FORM_DATA.isCompatibleWith(type)
            ? new MultipartHttpMessageReader(partReader).readMono(PARTS, request, Map.of()).cache()
            : Mono.just(new LinkedMultiValueMap<>());
  }

  /**
   * {@code exchange} with {@code request} (whose body the filter read) and {@code response}.
   *
   * @param maxInMemory the most bytes of a part kept in memory
   */
  public static ServerWebExchange of(
      ServerWebExchange exchange,
      ServerHttpRequest request,
      ServerHttpResponse response,
      long maxInMemory) {
    return new ReplayedExchange(
        exchange.mutate().request(request).response(response).build(),
        (int) Math.min(Integer.MAX_VALUE, maxInMemory));
  }

  @Override
  public Mono<MultiValueMap<String, String>> getFormData() {
    return form;
  }

  @Override
  public Mono<MultiValueMap<String, Part>> getMultipartData() {
    return parts;
  }

  private static MediaType contentType(HttpHeaders headers) {
    try {
      return headers.getContentType();
    } catch (org.springframework.http.InvalidMediaTypeException e) {
      return null;
    }
  }
}
