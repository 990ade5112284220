package dev.idem.spring.webflux.internal;

import java.util.Map;
import org.springframework.core.ResolvableType;
import org.springframework.http.codec.FormHttpMessageReader;
import org.springframework.http.codec.multipart.DefaultPartHttpMessageReader;
import org.springframework.http.codec.multipart.MultipartHttpMessageReader;
import org.springframework.http.codec.multipart.Part;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.util.MultiValueMap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Spring's form and part readers, sized to the body the filter reads up front: what the fingerprint
 * and the guarded handler read form fields and parts from, each from that body.
 */
public final class BodyReaders {

  private static final ResolvableType FORM =
      ResolvableType.forClassWithGenerics(MultiValueMap.class, String.class, String.class);
  private static final ResolvableType PARTS =
      ResolvableType.forClassWithGenerics(MultiValueMap.class, String.class, Part.class);

  private final FormHttpMessageReader forms = new FormHttpMessageReader();
  private final DefaultPartHttpMessageReader parts = new DefaultPartHttpMessageReader();
  private final MultipartHttpMessageReader multipart = new MultipartHttpMessageReader(parts);

  /**
   * @param maxBodyBytes the largest body read, which forms and parts are kept in memory up to
   */
  public BodyReaders(long maxBodyBytes) {
    int max = (int) Math.min(Integer.MAX_VALUE, maxBodyBytes);
    forms.setMaxInMemorySize(max);
    parts.setMaxInMemorySize(max);
  }

  /** The form fields of {@code request}'s body. */
  public Mono<MultiValueMap<String, String>> form(ServerHttpRequest request) {
    return forms.readMono(FORM, request, Map.of());
  }

  /** The parts of {@code request}'s multipart body, in order. */
  public Flux<Part> parts(ServerHttpRequest request) {
    return parts.read(ResolvableType.forClass(Part.class), request, Map.of());
  }

  /** The parts of {@code request}'s multipart body, by name. */
  public Mono<MultiValueMap<String, Part>> partsByName(ServerHttpRequest request) {
    return multipart.readMono(PARTS, request, Map.of());
  }
}
