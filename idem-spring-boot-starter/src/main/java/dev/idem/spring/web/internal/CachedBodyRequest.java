package dev.idem.spring.web.internal;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Enumeration;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A request whose body was read up front (to fingerprint it before the claim) and is served again
 * to the handler from memory.
 */
public final class CachedBodyRequest extends HttpServletRequestWrapper {

  private final byte[] body;
  private volatile @Nullable Map<String, String[]> parameters;

  private CachedBodyRequest(HttpServletRequest request, byte[] body) {
    super(request);
    this.body = body;
  }

  /** Reads the body of {@code request}, or returns null when it is longer than {@code maxBytes}. */
  public static @Nullable CachedBodyRequest read(HttpServletRequest request, long maxBytes)
      throws IOException {
    long declared = request.getContentLengthLong();
    if (declared > maxBytes) {
      return null;
    }
    InputStream in = request.getInputStream();
    if (declared >= 0 && declared <= Integer.MAX_VALUE - 8) {
      // the container ends the stream at the declared length; reading just that many bytes
      // spares an 8 KiB buffer and a copy per request
      return new CachedBodyRequest(request, in.readNBytes((int) declared));
    }
    byte[] body = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
    return body.length > maxBytes ? null : new CachedBodyRequest(request, body);
  }

  /**
   * The request's parameters as the handler reads them: those the container or an earlier filter
   * found (the query's, and a form body another filter read), then the fields of a form body read
   * here, which the container no longer sees once the body stream was read.
   */
  @Override
  public Map<String, String[]> getParameterMap() {
    Map<String, String[]> known = parameters;
    if (known == null) {
      known =
          FormFields.merge(super.getParameterMap(), getContentType(), getCharacterEncoding(), body);
      parameters = known;
    }
    return known;
  }

  @Override
  public @Nullable String getParameter(String name) {
    String[] values = getParameterMap().get(name);
    return values == null || values.length == 0 ? null : values[0];
  }

  @Override
  public Enumeration<String> getParameterNames() {
    return Collections.enumeration(getParameterMap().keySet());
  }

  @Override
  public String @Nullable [] getParameterValues(String name) {
    String[] values = getParameterMap().get(name);
    return values == null ? null : values.clone();
  }

  /** The body as sent. */
  public byte[] body() {
    return body.clone();
  }

  @Override
  public ServletInputStream getInputStream() {
    ByteArrayInputStream in = new ByteArrayInputStream(body);
    return new ServletInputStream() {
      @Override
      public int read() {
        return in.read();
      }

      @Override
      public int read(byte[] b, int off, int len) {
        return in.read(b, off, len);
      }

      @Override
      public boolean isFinished() {
        return in.available() == 0;
      }

      @Override
      public boolean isReady() {
        return true;
      }

      @Override
      public void setReadListener(ReadListener listener) {
        throw new UnsupportedOperationException("the body is already in memory");
      }
    };
  }

  @Override
  public BufferedReader getReader() {
    String encoding = getCharacterEncoding();
    Charset charset = encoding == null ? StandardCharsets.UTF_8 : Charset.forName(encoding);
    return new BufferedReader(new InputStreamReader(getInputStream(), charset));
  }
}
