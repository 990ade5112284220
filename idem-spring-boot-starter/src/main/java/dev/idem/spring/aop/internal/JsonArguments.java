package dev.idem.spring.aop.internal;

import dev.idem.core.ResultCodec;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The arguments of a resumable method as a JSON array written by the application's mapper, read
 * back as the method's declared (generic) parameter types, so that a completer calls the method
 * with what its client called it with.
 */
public final class JsonArguments implements ResultCodec<@Nullable Object[]> {

  private final ObjectMapper mapper;
  private final JavaType[] types;
  private final String method;

  /** The codec of {@code method}'s arguments as declared on {@code targetClass}. */
  public JsonArguments(ObjectMapper mapper, Method method, Class<?> targetClass) {
    this.mapper = mapper;
    this.method = method.toGenericString();
    Type[] declared = method.getGenericParameterTypes();
    this.types = new JavaType[declared.length];
    for (int i = 0; i < declared.length; i++) {
      types[i] =
          mapper
              .getTypeFactory()
              .constructType(
                  org.springframework.core.GenericTypeResolver.resolveType(
                      declared[i], targetClass));
    }
  }

  @Override
  public byte[] encode(@Nullable Object[] arguments) {
    return mapper.writeValueAsBytes(arguments);
  }

  @Override
  public @Nullable Object[] decode(byte[] bytes) {
    JsonNode array = mapper.readTree(bytes);
    if (!array.isArray() || array.size() != types.length) {
      throw new IllegalStateException(
          "the stored arguments of " + method + " do not match its parameters: " + array);
    }
    @Nullable Object[] arguments = new Object[types.length];
    for (int i = 0; i < types.length; i++) {
      arguments[i] = mapper.treeToValue(array.get(i), types[i]);
    }
    return arguments;
  }
}
