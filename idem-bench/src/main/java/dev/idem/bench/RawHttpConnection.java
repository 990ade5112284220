package dev.idem.bench;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One keep-alive HTTP/1.1 connection that sends a fixed JSON POST with an {@code Idempotency-Key}
 * and reads the answer: the least a client can do per request, so that on a machine where the load
 * generator and the server share the processors, the client takes as little of them as it can. It
 * reads {@code Content-Length} and chunked bodies, and reconnects when the server closes.
 */
final class RawHttpConnection implements HttpConnection {

  private final InetSocketAddress address;
  private final byte[] head;
  private final byte[] tail;
  private final ByteArrayOutputStream request = new ByteArrayOutputStream(512);
  private final ByteArrayOutputStream body = new ByteArrayOutputStream(256);
  private final StringBuilder line = new StringBuilder(128);
  private Socket socket;
  private InputStream in;
  private OutputStream out;

  /** A connection to {@code port} on loopback that posts {@code json} to {@code path}. */
  RawHttpConnection(int port, String path, String json) {
    this.address = new InetSocketAddress("127.0.0.1", port);
    byte[] content = json.getBytes(StandardCharsets.UTF_8);
    this.head =
        ("POST "
                + path
                + " HTTP/1.1\r\nHost: 127.0.0.1:"
                + port
                + "\r\nContent-Type: application/json\r\nAccept: application/json\r\n"
                + "Content-Length: "
                + content.length
                + "\r\nIdempotency-Key: ")
            .getBytes(StandardCharsets.US_ASCII);
    byte[] end = "\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    this.tail = new byte[end.length + content.length];
    System.arraycopy(end, 0, tail, 0, end.length);
    System.arraycopy(content, 0, tail, end.length, content.length);
  }

  @Override
  public Answer post(String key) throws IOException {
    if (socket == null) {
      connect();
    }
    request.reset();
    request.write(head);
    request.write(key.getBytes(StandardCharsets.US_ASCII));
    request.write(tail);
    request.writeTo(out);
    out.flush();
    return read();
  }

  private void connect() throws IOException {
    socket = new Socket();
    socket.setTcpNoDelay(true);
    socket.connect(address, 5_000);
    socket.setSoTimeout(30_000);
    in = new BufferedInputStream(socket.getInputStream(), 8192);
    out = socket.getOutputStream();
  }

  private Answer read() throws IOException {
    String statusLine = readLine();
    if (!statusLine.startsWith("HTTP/1.1 ") || statusLine.length() < 12) {
      throw new IOException("not an HTTP/1.1 status line: " + statusLine);
    }
    int status = Integer.parseInt(statusLine.substring(9, 12));
    long length = -1;
    boolean chunked = false;
    boolean close = false;
    boolean replayed = false;
    for (String header = readLine(); !header.isEmpty(); header = readLine()) {
      int colon = header.indexOf(':');
      if (colon <= 0) {
        throw new IOException("bad header line: " + header);
      }
      String name = header.substring(0, colon).trim().toLowerCase(Locale.ROOT);
      String value = header.substring(colon + 1).trim();
      switch (name) {
        case "content-length" -> length = Long.parseLong(value);
        case "transfer-encoding" -> chunked = value.equalsIgnoreCase("chunked");
        case "connection" -> close = value.equalsIgnoreCase("close");
        case "idempotent-replayed" -> replayed = value.equals("true");
        default -> {
          // not needed
        }
      }
    }
    body.reset();
    if (chunked) {
      readChunks();
    } else if (length >= 0) {
      copy(length);
    } else {
      throw new IOException("answer without Content-Length or chunked encoding");
    }
    if (close) {
      close();
    }
    return new Answer(status, replayed, body.toString(StandardCharsets.UTF_8));
  }

  private void readChunks() throws IOException {
    while (true) {
      String size = readLine();
      int semicolon = size.indexOf(';');
      long length = Long.parseLong(semicolon < 0 ? size : size.substring(0, semicolon), 16);
      if (length == 0) {
        while (!readLine().isEmpty()) {
          // trailers, not needed
        }
        return;
      }
      copy(length);
      if (!readLine().isEmpty()) {
        throw new IOException("chunk not followed by CRLF");
      }
    }
  }

  private void copy(long length) throws IOException {
    for (long i = 0; i < length; i++) {
      int b = in.read();
      if (b < 0) {
        throw new EOFException("connection closed inside a body");
      }
      body.write(b);
    }
  }

  private String readLine() throws IOException {
    line.setLength(0);
    while (true) {
      int b = in.read();
      if (b < 0) {
        throw new EOFException("connection closed by the server");
      }
      if (b == '\n') {
        int last = line.length() - 1;
        if (last >= 0 && line.charAt(last) == '\r') {
          line.setLength(last);
        }
        return line.toString();
      }
      line.append((char) b);
    }
  }

  @Override
  public void close() throws IOException {
    if (socket != null) {
      socket.close();
      socket = null;
    }
  }
}
