package dev.idem.spring.web.internal;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Holds the handler's body in memory until the outcome is known, so that it can be stored before
 * the client sees it. Status and headers pass through to the real response; {@code sendError} is
 * recorded and sent only by {@link #commit()}. A body that grows past the limit of what is stored
 * is not held any longer: what was held goes out, and the rest passes straight through, so an
 * export of any size costs no more memory than the limit; such an answer is stored as the
 * not-replayable mark.
 */
public final class CapturingResponse extends HttpServletResponseWrapper
    implements HttpRules.Answer {

  private final ByteArrayOutputStream body = new ByteArrayOutputStream();
  private final long limit;
  private @Nullable ServletOutputStream stream;
  private @Nullable PrintWriter writer;
  private @Nullable String error;
  private long passed;
  private boolean passingThrough;
  private boolean async;

  /**
   * @param limit the most body bytes held; past it the body passes through
   */
  public CapturingResponse(HttpServletResponse response, long limit) {
    super(response);
    this.limit = limit;
  }

  /** The answer so far, with only the replayable headers. */
  @Override
  public StoredResponse snapshot() {
    flushWriter();
    return new StoredResponse(getStatus(), replayedHeaders(), body.toByteArray(), error, 0);
  }

  /**
   * The answer's status and replayable headers without its body, which is too large to keep: a
   * repeat is told that the first answer cannot be replayed.
   */
  @Override
  public StoredResponse snapshotWithoutBody() {
    flushWriter();
    return new StoredResponse(
        getStatus(), replayedHeaders(), new byte[0], null, Math.max(1, bodySize()));
  }

  private List<Map.Entry<String, String>> replayedHeaders() {
    return StoredResponse.replayedHeaders(getResponse()::getHeaders);
  }

  @Override
  public int status() {
    return getStatus();
  }

  @Override
  public @Nullable String retryAfter() {
    return getHeader(org.springframework.http.HttpHeaders.RETRY_AFTER);
  }

  /** The number of body bytes written so far, held or passed through. */
  @Override
  public long bodySize() {
    flushWriter();
    return passed + body.size();
  }

  /** True once part of the answer has gone to the client while the handler was still at work. */
  public boolean isPassingThrough() {
    return passingThrough;
  }

  /**
   * Leaves the answer to the asynchronous processing the handler started: what was held goes out,
   * unflushed, and the status, headers and body the processing sets later reach the client as they
   * come; {@link #commit()} then sends nothing.
   */
  public void leaveToAsync() throws IOException {
    async = true;
    passThrough();
  }

  /** Sends the held answer to the client, or the rest of one that passes through. */
  public void commit() throws IOException {
    flushWriter();
    HttpServletResponse response = getResponse();
    if (async) {
      return;
    }
    if (passingThrough) {
      response.flushBuffer();
      return;
    }
    if (error != null) {
      response.sendError(getStatus(), error.isEmpty() ? null : error);
      return;
    }
    if (!response.isCommitted()) {
      response.setContentLength(body.size());
    }
    body.writeTo(response.getOutputStream());
    response.flushBuffer();
  }

  @Override
  public HttpServletResponse getResponse() {
    return (HttpServletResponse) super.getResponse();
  }

  @Override
  public void sendError(int sc) {
    sendError(sc, "");
  }

  @Override
  public void sendError(int sc, String msg) {
    setStatus(sc);
    error = msg == null ? "" : msg;
  }

  @Override
  public void sendRedirect(String location) {
    setStatus(HttpServletResponse.SC_FOUND);
    setHeader("Location", location);
  }

  @Override
  public ServletOutputStream getOutputStream() {
    if (stream == null) {
      stream = new Buffer();
    }
    return stream;
  }

  @Override
  public PrintWriter getWriter() {
    if (writer == null) {
      Charset charset = Charset.forName(getCharacterEncoding());
      writer = new PrintWriter(new OutputStreamWriter(getOutputStream(), charset));
    }
    return writer;
  }

  @Override
  public void flushBuffer() throws IOException {
    flushWriter();
    if (passingThrough && !async) {
      getResponse().flushBuffer();
    }
  }

  @Override
  public boolean isCommitted() {
    return passingThrough;
  }

  @Override
  public void resetBuffer() {
    if (passingThrough) {
      throw new IllegalStateException("the answer is already going out");
    }
    body.reset();
  }

  @Override
  public void reset() {
    if (passingThrough) {
      throw new IllegalStateException("the answer is already going out");
    }
    super.reset();
    body.reset();
    error = null;
  }

  @Override
  public void setContentLength(int len) {
    // the length is set once the final body is known
  }

  @Override
  public void setContentLengthLong(long len) {
    // as setContentLength
  }

  private void flushWriter() {
    if (writer != null) {
      writer.flush();
    }
  }

  // Stops holding the body: what was held goes out, and from now on every byte passes straight
  // through (past the limit, or for an answer that will come asynchronously).
  private void passThrough() throws IOException {
    if (passingThrough) {
      return;
    }
    flushWriter();
    passingThrough = true;
    passed = body.size();
    ServletOutputStream out = getResponse().getOutputStream();
    body.writeTo(out);
    body.reset();
  }

  private final class Buffer extends ServletOutputStream {
    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      if (!passingThrough && error == null && body.size() + (long) len > limit) {
        passThrough();
      }
      if (passingThrough) {
        getResponse().getOutputStream().write(b, off, len);
        passed += len;
      } else {
        body.write(b, off, len);
      }
    }

    @Override
    public void flush() throws IOException {
      if (passingThrough) {
        getResponse().getOutputStream().flush();
      }
    }

    @Override
    public boolean isReady() {
      return true;
    }

    @Override
    public void setWriteListener(WriteListener listener) {
      throw new UnsupportedOperationException("the body is held in memory");
    }
  }
}
