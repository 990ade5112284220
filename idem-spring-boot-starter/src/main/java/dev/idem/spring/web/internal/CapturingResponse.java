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

/**
 * Holds the handler's body in memory until the outcome is known, so that it can be stored before
 * the client sees it. Status and headers pass through to the real response; {@code sendError} is
 * recorded and sent only by {@link #commit()}.
 */
public final class CapturingResponse extends HttpServletResponseWrapper {

  private final ByteArrayOutputStream body = new ByteArrayOutputStream();
  private ServletOutputStream stream;
  private PrintWriter writer;
  private String error;

  public CapturingResponse(HttpServletResponse response) {
    super(response);
  }

  /** The answer so far, with only the replayable headers. */
  public StoredResponse snapshot() {
    flushWriter();
    return new StoredResponse(getStatus(), replayedHeaders(), body.toByteArray(), error, 0);
  }

  /**
   * The answer's status and replayable headers without its body, which is too large to keep: a
   * repeat is told that the first answer cannot be replayed.
   */
  public StoredResponse snapshotWithoutBody() {
    flushWriter();
    return new StoredResponse(getStatus(), replayedHeaders(), new byte[0], null, body.size());
  }

  private List<Map.Entry<String, String>> replayedHeaders() {
    return StoredResponse.replayedHeaders(getResponse()::getHeaders);
  }

  /** The number of body bytes held. */
  public int bodySize() {
    flushWriter();
    return body.size();
  }

  /** Sends the held answer to the client. */
  public void commit() throws IOException {
    flushWriter();
    HttpServletResponse response = getResponse();
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
      writer = new PrintWriter(new OutputStreamWriter(body, charset));
    }
    return writer;
  }

  @Override
  public void flushBuffer() {
    flushWriter();
  }

  @Override
  public boolean isCommitted() {
    return false;
  }

  @Override
  public void resetBuffer() {
    body.reset();
  }

  @Override
  public void reset() {
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

  private final class Buffer extends ServletOutputStream {
    @Override
    public void write(int b) {
      body.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) {
      body.write(b, off, len);
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
