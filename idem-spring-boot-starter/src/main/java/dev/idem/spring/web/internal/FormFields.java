package dev.idem.spring.web.internal;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpInputMessage;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.http.converter.FormHttpMessageConverter;
import org.springframework.util.MultiValueMap;

/**
 * The fields of a form body ({@code application/x-www-form-urlencoded}), decoded by Spring's own
 * form converter, and the parameters a handler reads once they are added to the request's.
 */
public final class FormFields {

  private static final FormHttpMessageConverter FORMS = new FormHttpMessageConverter();

  private FormFields() {}

  /** Whether {@code contentType} is a form body's. */
  public static boolean isForm(String contentType) {
    MediaType type = parse(contentType);
    return type != null && MediaType.APPLICATION_FORM_URLENCODED.includes(type);
  }

  /**
   * {@code known} (query and fields found before), then the fields of {@code body} when it is a
   * form body, in {@code encoding} when its content type names no charset.
   */
  static Map<String, String[]> merge(
      Map<String, String[]> known, String contentType, String encoding, byte[] body) {
    if (!isForm(contentType) || body.length == 0) {
      return known;
    }
    Map<String, List<String>> all = new LinkedHashMap<>();
    known.forEach(
        (name, values) ->
            all.computeIfAbsent(name, n -> new ArrayList<>()).addAll(List.of(values)));
    read(contentType, encoding, body)
        .forEach(
            (name, values) -> all.computeIfAbsent(name, n -> new ArrayList<>()).addAll(values));
    Map<String, String[]> merged = new LinkedHashMap<>();
    all.forEach((name, values) -> merged.put(name, values.toArray(String[]::new)));
    return Collections.unmodifiableMap(merged);
  }

  private static MultiValueMap<String, String> read(
      String contentType, String encoding, byte[] body) {
    MediaType type = parse(contentType);
    if (type.getCharset() == null && encoding != null && Charset.isSupported(encoding)) {
      type = new MediaType(type, Charset.forName(encoding));
    }
    HttpHeaders headers = new HttpHeaders();
    headers.setContentType(type);
    HttpInputMessage message =
        new HttpInputMessage() {
          @Override
          public InputStream getBody() {
            return new ByteArrayInputStream(body);
          }

          @Override
          public HttpHeaders getHeaders() {
            return headers;
          }
        };
    try {
      return FORMS.read(null, message);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static MediaType parse(String contentType) {
    if (contentType == null || contentType.isBlank()) {
      return null;
    }
    try {
      return MediaType.parseMediaType(contentType);
    } catch (InvalidMediaTypeException e) {
      return null;
    }
  }
}
