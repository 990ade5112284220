package dev.idem.spring.webflux.internal;

import dev.idem.core.Fingerprint;
import dev.idem.spring.web.internal.FormFields;
import dev.idem.spring.web.internal.RequestFingerprint;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.codec.multipart.Part;
import org.springframework.http.server.reactive.ServerHttpRequest;
import reactor.core.publisher.Mono;

/**
 * The fingerprint of a protected WebFlux request, from the body read up front: as {@link
 * RequestFingerprint} takes it, and for a multipart body by its parts, parsed by Spring's own part
 * reader from that body (the random boundary stays out of it).
 */
public final class ReactiveFingerprints {

  private final BodyReaders readers;

  public ReactiveFingerprints(BodyReaders readers) {
    this.readers = readers;
  }

  /** The fingerprint of {@code request}, whose body is {@code body}. */
  public Mono<Fingerprint> of(ServerHttpRequest request, byte[] body, Set<String> ignoredFields) {
    String method = request.getMethod().name();
    String path = request.getPath().pathWithinApplication().value();
    String query = request.getURI().getRawQuery();
    String contentType = request.getHeaders().getFirst(HttpHeaders.CONTENT_TYPE);
    if (FormFields.isForm(contentType)) {
      // by its fields as the handler reads them, the query's first, as on Spring MVC
      return readers
          .form(RequestBodies.replaying(request, body))
          .map(
              form -> {
                Map<String, List<String>> all = new LinkedHashMap<>();
                request.getQueryParams().forEach((name, values) -> add(all, name, values));
                form.forEach((name, values) -> add(all, name, values));
                Map<String, String[]> fields = new LinkedHashMap<>();
                all.forEach((name, values) -> fields.put(name, values.toArray(String[]::new)));
                return RequestFingerprint.ofFields(
                    method, path, query, contentType, fields, ignoredFields);
              })
          .onErrorMap(e -> !(e instanceof MalformedBody), e -> new MalformedBody("form", e));
    }
    if (!RequestFingerprint.isMultipart(contentType)) {
      return Mono.just(
          RequestFingerprint.of(method, path, query, contentType, body, ignoredFields));
    }
    return readers
        .parts(RequestBodies.replaying(request, body))
        .concatMap(ReactiveFingerprints::digest)
        .collectList()
        .map(read -> RequestFingerprint.ofParts(method, path, query, contentType, read))
        .onErrorMap(e -> !(e instanceof MalformedBody), e -> new MalformedBody("multipart", e));
  }

  /**
   * A form or multipart body that cannot be read (a malformed escape or part, a part without a name
   * or with a content type that is none): the request is refused with 400 before its claim.
   */
  public static final class MalformedBody extends RuntimeException {
    private final String kind;

    MalformedBody(String kind, Throwable cause) {
      super(cause.getMessage(), cause, false, false);
      this.kind = kind;
    }

    /** {@code form} or {@code multipart}. */
    public String kind() {
      return kind;
    }
  }

  private static void add(Map<String, List<String>> all, String name, List<String> values) {
    all.computeIfAbsent(name, n -> new ArrayList<>()).addAll(values);
  }

  private static Mono<RequestFingerprint.Part> digest(Part part) {
    MessageDigest digest = RequestFingerprint.partDigest();
    MediaType type = part.headers().getContentType();
    return part.content()
        .doOnNext(buffer -> update(digest, buffer))
        .then(
            Mono.fromSupplier(
                () ->
                    new RequestFingerprint.Part(
                        part.name(),
                        part.headers().getContentDisposition().getFilename(),
                        type == null ? null : type.toString(),
                        digest.digest())));
  }

  private static void update(MessageDigest digest, DataBuffer buffer) {
    try {
      byte[] bytes = new byte[buffer.readableByteCount()];
      buffer.read(bytes);
      digest.update(bytes);
    } finally {
      DataBufferUtils.release(buffer);
    }
  }
}
