package dev.idem.spring.aop.internal;

import dev.idem.core.ResultCodec;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ObjectMapper;

/**
 * Stores a method's return value as JSON written by the application's mapper and reads it back as
 * the method's declared (generic) return type. {@code null} is stored as JSON {@code null}; an
 * {@code Optional} is stored as its content or {@code null}.
 */
public final class JacksonResultCodec implements ResultCodec<@Nullable Object> {

  private final ObjectMapper mapper;
  private final JavaType type;

  /**
   * A codec that writes values with {@code mapper} and reads them back as {@code type}.
   *
   * @param mapper the application's mapper, whose modules and settings apply to stored values
   * @param type the method's resolved return type, generics included
   */
  public JacksonResultCodec(ObjectMapper mapper, JavaType type) {
    this.mapper = mapper;
    this.type = type;
  }

  @Override
  public byte[] encode(@Nullable Object value) {
    return mapper.writeValueAsBytes(value);
  }

  @Override
  public @Nullable Object decode(byte[] bytes) {
    return mapper.readValue(bytes, type);
  }
}
