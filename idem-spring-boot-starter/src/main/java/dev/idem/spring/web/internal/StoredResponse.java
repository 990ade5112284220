package dev.idem.spring.web.internal;

import dev.idem.core.ResultCodec;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * An HTTP answer as stored for replay: status, the allow-listed headers, and the body byte for
 * byte. {@code error} is the message of a {@code sendError} answer, which the container renders
 * again on replay; null for an ordinary answer.
 */
public record StoredResponse(
    int status, List<Map.Entry<String, String>> headers, byte[] body, String error) {

  /** Headers replayed; everything else (Set-Cookie above all) is left out. */
  public static final List<String> REPLAYED_HEADERS =
      List.of("Content-Type", "Location", "ETag", "Last-Modified", "Link", "Content-Location");

  private static final int FORMAT = 1;

  /** Sends this answer again, marked with {@code Idempotent-Replayed: true}. */
  public void replayTo(HttpServletResponse response) throws IOException {
    response.setStatus(status);
    for (Map.Entry<String, String> header : headers) {
      response.addHeader(header.getKey(), header.getValue());
    }
    response.setHeader("Idempotent-Replayed", "true");
    if (error != null) {
      response.sendError(status, error.isEmpty() ? null : error);
      return;
    }
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }

  /** The codec that stores answers; the first byte is a format number for later versions. */
  public static ResultCodec<StoredResponse> codec() {
    return new ResultCodec<>() {
      @Override
      public byte[] encode(StoredResponse value) {
        return StoredResponse.encode(value);
      }

      @Override
      public StoredResponse decode(byte[] bytes) {
        return StoredResponse.decode(bytes);
      }
    };
  }

  private static byte[] encode(StoredResponse r) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(r.body.length + 128);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(FORMAT);
      out.writeInt(r.status);
      out.writeBoolean(r.error != null);
      out.writeUTF(r.error == null ? "" : r.error);
      out.writeInt(r.headers.size());
      for (Map.Entry<String, String> header : r.headers) {
        out.writeUTF(header.getKey());
        out.writeUTF(header.getValue());
      }
      out.writeInt(r.body.length);
      out.write(r.body);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  private static StoredResponse decode(byte[] bytes) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      int format = in.readByte();
      if (format != FORMAT) {
        throw new IllegalStateException("unknown stored response format " + format);
      }
      int status = in.readInt();
      boolean isError = in.readBoolean();
      String error = in.readUTF();
      int count = in.readInt();
      List<Map.Entry<String, String>> headers = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        headers.add(Map.entry(in.readUTF(), in.readUTF()));
      }
      byte[] body = in.readNBytes(in.readInt());
      return new StoredResponse(status, List.copyOf(headers), body, isError ? error : null);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
