package dev.idem.spring.aop;

import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;

/**
 * Names the caller of an {@link dev.idem.spring.Idempotent @Idempotent} bean method, so that the
 * same key from two callers makes two records. Without a bean of this type the scope of a bean
 * method's key is its operation alone: the key expression is expected to name the effect itself (an
 * order number, a job's date), which must happen once whoever asks for it.
 */
@FunctionalInterface
public interface IdempotentCallerResolver {

  /**
   * The caller's identity, or null for none (the scope is then the operation alone). At most a few
   * hundred characters, no control characters, no {@code '|'}.
   */
  String resolve(Method method, @Nullable Object[] arguments);
}
