package dev.idem.core;

import java.nio.charset.StandardCharsets;

/** The built-in codecs behind {@link ResultCodec}'s factory methods. */
final class Codecs {

  static final ResultCodec<byte[]> BYTES =
      new ResultCodec<>() {
        @Override
        public byte[] encode(byte[] value) {
          return value == null ? new byte[0] : value;
        }

        @Override
        public byte[] decode(byte[] bytes) {
          return bytes;
        }
      };

  static final ResultCodec<Void> NONE =
      new ResultCodec<>() {
        @Override
        public byte[] encode(Void value) {
          return new byte[0];
        }

        @Override
        public Void decode(byte[] bytes) {
          return null;
        }
      };

  // One leading byte tells a null result ('N') from a string ('S'), including the empty one.
  static final ResultCodec<String> UTF8 =
      new ResultCodec<>() {
        @Override
        public byte[] encode(String value) {
          return value == null ? new byte[] {'N'} : ("S" + value).getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String decode(byte[] bytes) {
          if (bytes.length == 0 || bytes[0] == 'N') {
            return null;
          }
          return new String(bytes, 1, bytes.length - 1, StandardCharsets.UTF_8);
        }
      };

  private Codecs() {}
}
