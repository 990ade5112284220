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
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpInputMessage;
import org.springframework.http.MediaType;
import org.springframework.http.converter.FormHttpMessageConverter;
import org.springframework.util.MultiValueMap;

/**
 * The fields of a form body ({@code application/x-www-form-urlencoded}), decoded by Spring's own
 * form converter, and the parameters a handler reads once they are added to the request's.
 */
public final class FormFields {

  private static final FormHttpMessageConverter FORMS = new FormHttpMessageConverter();

  /** The most fields a form body may hold, as a servlet container allows by default. */
  public static final int MAX_FIELDS = 1_000;

  /** A form body that cannot be read as fields: the request is refused with 400. */
  public static final class MalformedFormException extends IllegalArgumentException {
    MalformedFormException(@Nullable String message) {
      super(message);
    }
  }

  private FormFields() {}

  /** Whether {@code contentType} is a form body's. */
  public static boolean isForm(@Nullable String contentType) {
    MediaType type = RequestFingerprint.parse(contentType);
    return type != null && MediaType.APPLICATION_FORM_URLENCODED.includes(type);
  }

  /**
   * {@code known} (query and fields found before), then the fields of {@code body} when it is a
   * form body, in {@code encoding} when its content type names no charset.
   */
  static Map<String, String[]> merge(
      Map<String, String[]> known,
      @Nullable String contentType,
      @Nullable String encoding,
      byte[] body) {
    if (!isForm(contentType) || body.length == 0) {
      return known;
    }
    Map<String, List<String>> all = new LinkedHashMap<>();
    known.forEach(
        (name, values) ->
            all.computeIfAbsent(name, n -> new ArrayList<>()).addAll(List.of(values)));
    MultiValueMap<String, String> fields = read(contentType, encoding, body);
    if (fields.values().stream().mapToInt(List::size).sum() > MAX_FIELDS) {
      throw new MalformedFormException("more than " + MAX_FIELDS + " form fields");
    }
    // a field without '=' is there with an empty value, as the container has it
    fields.forEach(
        (name, values) ->
            values.forEach(
                value ->
                    all.computeIfAbsent(name, n -> new ArrayList<>())
                        .add(value == null ? "" : value)));
    Map<String, String[]> merged = new LinkedHashMap<>();
    all.forEach((name, values) -> merged.put(name, values.toArray(String[]::new)));
    return Collections.unmodifiableMap(merged);
  }

  private static MultiValueMap<String, String> read(
      @Nullable String contentType, @Nullable String encoding, byte[] body) {
    MediaType type = RequestFingerprint.parse(contentType);
    if (type == null) {
      type = MediaType.APPLICATION_FORM_URLENCODED;
    }
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
    } catch (RuntimeException e) {
      // a malformed escape (%zz), a charset nobody knows
      throw new MalformedFormException(e.getMessage());
    }
  }
}
