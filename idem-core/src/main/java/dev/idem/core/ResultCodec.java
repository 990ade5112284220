package dev.idem.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Turns the work's result into stored bytes and back. Stored outcomes outlive the process that
 * wrote them, so a codec must read what earlier versions of itself wrote.
 *
 * <p>Terminal failures are stored too: the default {@link #encodeFailure} keeps the exception's
 * class name and message, and {@link #decodeFailure} replays them as a {@link
 * ReplayedFailureException}. Override both to rebuild your own exception types.
 *
 * @param <T> the result type
 */
public interface ResultCodec<T extends @Nullable Object> {

  /**
   * Encodes a result; {@code null} results must be handled if the work may return them. The array
   * returned is kept as it is (an in-memory store holds it): it must be one that nobody changes
   * afterwards, not an array the result still refers to.
   */
  byte[] encode(T value);

  /** Decodes what {@link #encode} wrote; {@code bytes} is this call's own copy. */
  T decode(byte[] bytes);

  /**
   * How long {@code value} is kept: {@code retention}, the operation's, unless this codec keeps
   * some values for less (an HTTP answer's codec keeps 4xx answers shorter). {@link Duration#ZERO}
   * answers without storing: the caller gets the value, nothing is encoded, and the key is freed
   * for a retry (when a transaction decides, once it ends). Called once per result, before {@link
   * #encode}.
   */
  default Duration retention(T value, Duration retention) {
    return retention;
  }

  /** Encodes a terminal failure. */
  default byte[] encodeFailure(Throwable failure) {
    String message = failure.getMessage() == null ? "" : failure.getMessage();
    return (failure.getClass().getName() + "\n" + message).getBytes(StandardCharsets.UTF_8);
  }

  /** Rebuilds the exception that a repeat of a terminally failed request gets. */
  default RuntimeException decodeFailure(byte[] bytes) {
    String text = new String(bytes, StandardCharsets.UTF_8);
    int newline = text.indexOf('\n');
    return newline < 0
        ? new ReplayedFailureException("", text)
        : new ReplayedFailureException(text.substring(0, newline), text.substring(newline + 1));
  }

  /** Strings as UTF-8; {@code null} is stored as a distinct marker. */
  static ResultCodec<String> utf8() {
    return Codecs.UTF8;
  }

  /** Raw bytes, a copy of them stored; {@code null} is stored as empty. */
  static ResultCodec<byte[]> bytes() {
    return Codecs.BYTES;
  }

  /** For work run for its effect alone: nothing is stored but the fact that it completed. */
  static ResultCodec<@Nullable Void> none() {
    return Codecs.NONE;
  }
}
