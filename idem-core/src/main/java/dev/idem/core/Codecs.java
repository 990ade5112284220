package dev.idem.core;

import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/** The built-in codecs behind {@link ResultCodec}'s factory methods. */
final class Codecs {

  static final ResultCodec<byte[]> BYTES =
      new ResultCodec<>() {
        // a copy: the caller keeps the array it returned, and may change it after the store kept it
        @Override
        public byte[] encode(byte[] value) {
          return value == null ? new byte[0] : value.clone();
        }

        @Override
        public byte[] decode(byte[] bytes) {
          return bytes;
        }
      };

  static final ResultCodec<@Nullable Void> NONE =
      new ResultCodec<>() {
        @Override
        public byte[] encode(@Nullable Void value) {
          return new byte[0];
        }

        @Override
        public @Nullable Void decode(byte[] bytes) {
          return null;
        }
      };

  // One leading byte tells a null result ('N') from a string ('S'), including the empty one. The
  // codec is typed for code that declares its strings non-null, where no null reaches it; code
  // that declares nothing may still store a null, and gets it back.
  static final ResultCodec<String> UTF8 =
      new ResultCodec<>() {
        @Override
        public byte[] encode(@Nullable String value) {
          return value == null ? new byte[] {'N'} : ("S" + value).getBytes(StandardCharsets.UTF_8);
        }

        @Override
        @SuppressWarnings("NullAway")
        public String decode(byte[] bytes) {
          if (bytes.length == 0 || bytes[0] == 'N') {
            return null;
          }
          return new String(bytes, 1, bytes.length - 1, StandardCharsets.UTF_8);
        }
      };

  private Codecs() {}
}
