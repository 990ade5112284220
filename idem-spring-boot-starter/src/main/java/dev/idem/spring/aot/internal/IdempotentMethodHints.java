package dev.idem.spring.aot.internal;

import dev.idem.spring.Idempotent;
import dev.idem.spring.messaging.IdempotentListener;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Registers, ahead of time, reflection on the types an {@code @Idempotent} or
 * {@code @IdempotentListener} method hands Idem: its result, which the Jackson codec stores and
 * replays, and its parameters, whose properties key and fingerprint expressions read. Without them
 * a native image would fail at the first stored answer or the first key. Registered through {@code
 * META-INF/spring/aot.factories}.
 */
public final class IdempotentMethodHints implements BeanRegistrationAotProcessor {

  private final BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();

  @Override
  public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean bean) {
    List<Type> types;
    try {
      types = typesOf(bean.getBeanClass());
    } catch (IllegalStateException | LinkageError unreadable) {
      // a class whose methods name a type that is not there cannot be guarded either: nothing to
      // add
      return null;
    }
    if (types.isEmpty()) {
      return null;
    }
    List<Method> resumable = resumableMethods(bean.getBeanClass());
    return (context, code) -> {
      ReflectionHints reflection = context.getRuntimeHints().reflection();
      register(reflection, types);
      // the completer calls a resumable method again through its bean, by reflection
      resumable.forEach(method -> reflection.registerMethod(method, ExecutableMode.INVOKE));
    };
  }

  /** The methods of {@code beanClass} a completer calls again. */
  static List<Method> resumableMethods(Class<?> beanClass) {
    List<Method> methods = new ArrayList<>();
    ReflectionUtils.doWithMethods(
        beanClass,
        methods::add,
        method -> {
          Idempotent idempotent =
              AnnotatedElementUtils.findMergedAnnotation(method, Idempotent.class);
          return idempotent != null && idempotent.resumable();
        });
    return methods;
  }

  /** The result and parameter types of the guarded methods of {@code beanClass}. */
  static List<Type> typesOf(Class<?> beanClass) {
    List<Type> types = new ArrayList<>();
    ReflectionUtils.doWithMethods(
        beanClass,
        method -> {
          if (!method.getReturnType().isPrimitive()) {
            types.add(method.getGenericReturnType());
          }
          types.addAll(List.of(method.getGenericParameterTypes()));
        },
        IdempotentMethodHints::guarded);
    return types;
  }

  void register(ReflectionHints hints, List<Type> types) {
    bindings.registerReflectionHints(hints, types.toArray(Type[]::new));
  }

  private static boolean guarded(Method method) {
    return AnnotatedElementUtils.hasAnnotation(method, Idempotent.class)
        || AnnotatedElementUtils.hasAnnotation(method, IdempotentListener.class);
  }
}
