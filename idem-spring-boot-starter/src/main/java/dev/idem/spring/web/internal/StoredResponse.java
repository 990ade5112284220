package dev.idem.spring.web.internal;

import dev.idem.core.ResultCodec;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * An HTTP answer as stored for replay: status, the allow-listed headers, and the body byte for
 * byte. {@code error} is the message of a {@code sendError} answer, which the container renders
 * again on replay; null for an ordinary answer. {@code omittedBytes} is the size of a body too
 * large to keep (0 when the body is kept): such an answer is replayed as a {@code not-replayable}
 * problem, since the request ran once and must not run again.
 */
public record StoredResponse(
    int status,
    List<Map.Entry<String, String>> headers,
    byte[] body,
    @Nullable String error,
    long omittedBytes) {

  /**
   * Headers replayed: those that say what the body is (its type, encoding, language, whether it is
   * an attachment) and where the result lives; everything else (Set-Cookie above all) is left out.
   */
  public static final List<String> REPLAYED_HEADERS =
      List.of(
          "Content-Type",
          "Content-Encoding",
          "Content-Language",
          "Content-Disposition",
          "Location",
          "ETag",
          "Last-Modified",
          "Link",
          "Content-Location");

  // 1: without omittedBytes (read as 0); 2: with it
  private static final int FORMAT = 2;

  /**
   * The allow-listed headers of an answer, in {@link #REPLAYED_HEADERS}' order, each value of each;
   * {@code valuesOf} gives a header's values.
   */
  public static List<Map.Entry<String, String>> replayedHeaders(
      Function<String, ? extends Collection<String>> valuesOf) {
    List<Map.Entry<String, String>> kept = new ArrayList<>();
    for (String name : REPLAYED_HEADERS) {
      for (String value : valuesOf.apply(name)) {
        kept.add(Map.entry(name, value));
      }
    }
    return List.copyOf(kept);
  }

  /** The answer a repeat gets when the body was too large to keep: the effect happened once. */
  public ProblemAnswer notReplayable() {
    return new ProblemAnswer(
        ProblemAnswer.NOT_REPLAYABLE_STATUS,
        "not-replayable",
        "The first answer cannot be replayed",
        "the request ran once and answered "
            + status
            + " with a body of "
            + omittedBytes
            + " bytes, over the limit of what is stored; it will not run again",
        null);
  }

  /** The codec that stores answers; the first byte is a format number for later versions. */
  public static ResultCodec<StoredResponse> codec() {
    return codec(null);
  }

  /**
   * As {@link #codec()}, keeping a 4xx answer no longer than {@code clientErrorRetention}: a client
   * error is cheap to get again, and keeping it a day lets one caller's mistakes fill the store.
   *
   * @param clientErrorRetention the most a 4xx answer is kept, or null for the operation's own
   */
  public static ResultCodec<StoredResponse> codec(
      java.time.@Nullable Duration clientErrorRetention) {
    return new ResultCodec<>() {
      @Override
      public java.time.Duration retention(StoredResponse value, java.time.Duration retention) {
        boolean clientError = value.status() >= 400 && value.status() < 500;
        return clientError
                && clientErrorRetention != null
                && clientErrorRetention.compareTo(retention) < 0
            ? clientErrorRetention
            : retention;
      }

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
      out.writeLong(r.omittedBytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  private static StoredResponse decode(byte[] bytes) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      int format = in.readByte();
      if (format != 1 && format != FORMAT) {
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
      long omitted = format == 1 ? 0 : in.readLong();
      return new StoredResponse(
          status, List.copyOf(headers), body, isError ? error : null, omitted);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
