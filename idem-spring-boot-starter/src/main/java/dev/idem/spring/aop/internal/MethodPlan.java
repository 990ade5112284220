package dev.idem.spring.aop.internal;

import dev.idem.core.IdempotencyConfig;
import dev.idem.core.ResultCodec;
import dev.idem.spring.IdemPolicies;
import dev.idem.spring.Idempotent;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.springframework.core.GenericTypeResolver;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.ExpressionParser;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import tools.jackson.databind.ObjectMapper;

/**
 * What the advice needs to know about one {@link Idempotent} method, worked out at its first call
 * and cached (its key expression is checked earlier, when the bean is proxied): the parsed
 * expressions, the operation, its config and the codec of its return type.
 *
 * @param method the method of the target class, whose parameter names the expressions use
 * @param operation the operation name (scope and policy)
 * @param required false when a null or blank key runs the method unguarded
 * @param key the parsed key expression
 * @param fingerprint the parsed fingerprint expression, or null for {@code Fingerprint.NONE}
 * @param ignoredFields JSON paths left out of the fingerprint
 * @param config the engine config of the operation
 * @param codec stores and reads back the return value
 */
public record MethodPlan(
    Method method,
    String operation,
    boolean required,
    Expression key,
    Expression fingerprint,
    Set<String> ignoredFields,
    IdempotencyConfig config,
    ResultCodec<Object> codec) {

  /**
   * Plans {@code method} as called on {@code targetClass}.
   *
   * @throws IllegalStateException when the method's annotation names no key expression
   */
  public static MethodPlan of(
      Method method,
      Class<?> targetClass,
      ExpressionParser parser,
      IdemPolicies policies,
      ObjectMapper mapper) {
    Class<?> userClass = ClassUtils.getUserClass(targetClass);
    Method specific = ClassUtils.getMostSpecificMethod(method, userClass);
    Idempotent idempotent = annotation(method, specific);
    String operation = operation(method, userClass, idempotent);
    requireKey(operation, idempotent);
    Expression fingerprint =
        idempotent.fingerprint().isBlank()
            ? null
            : parser.parseExpression(idempotent.fingerprint());
    Set<String> ignored = new LinkedHashSet<>(policies.ignoredFields(operation));
    ignored.addAll(Set.of(idempotent.ignoreFields()));
    return new MethodPlan(
        specific,
        operation,
        idempotent.required(),
        parser.parseExpression(idempotent.key()),
        fingerprint,
        Set.copyOf(ignored),
        policies.forAnnotation(operation, idempotent),
        codec(specific, userClass, mapper));
  }

  /**
   * Checks every method of {@code targetClass} that {@code pointcut} matches, so that a missing key
   * expression or a wrong duration ({@code placeholders} resolves its placeholders) stops the
   * application at startup rather than at the method's first call.
   *
   * @throws IllegalStateException naming the first annotated method without a key expression, or
   *     with a wrong duration
   */
  public static void requireKeys(
      Class<?> targetClass, IdempotentMethodPointcut pointcut, UnaryOperator<String> placeholders) {
    Class<?> userClass = ClassUtils.getUserClass(targetClass);
    for (Method method : ReflectionUtils.getUniqueDeclaredMethods(userClass)) {
      if (pointcut.matches(method, userClass)) {
        Method specific = ClassUtils.getMostSpecificMethod(method, userClass);
        Idempotent idempotent = annotation(method, specific);
        String operation = operation(method, userClass, idempotent);
        requireKey(operation, idempotent);
        requireResultNow(operation, specific);
        IdemPolicies.checkAnnotation(operation, idempotent, placeholders);
      }
    }
  }

  private static Idempotent annotation(Method method, Method specific) {
    Idempotent idempotent = AnnotatedElementUtils.findMergedAnnotation(specific, Idempotent.class);
    return idempotent != null
        ? idempotent
        : AnnotatedElementUtils.findMergedAnnotation(method, Idempotent.class);
  }

  private static String operation(Method method, Class<?> userClass, Idempotent idempotent) {
    return idempotent.operation().isEmpty()
        ? userClass.getSimpleName() + "." + method.getName()
        : idempotent.operation();
  }

  /**
   * Types of a result that is not there yet when the method returns, by name: some may be absent.
   */
  private static final List<String> LATER =
      List.of(
          "java.util.concurrent.Future",
          "java.util.concurrent.CompletionStage",
          "org.reactivestreams.Publisher");

  private static void requireKey(String operation, Idempotent idempotent) {
    if (idempotent.key().isBlank()) {
      throw new IllegalStateException(
          "@Idempotent on " + operation + " needs a key expression, such as key = \"#orderNo\"");
    }
  }

  /**
   * Refuses a method that hands back its work to be done later (a future, a reactive publisher):
   * the claim would end when the method returns, and the work would run after it, unguarded.
   */
  private static void requireResultNow(String operation, Method method) {
    Class<?> returned = method.getReturnType();
    for (String later : LATER) {
      if (ClassUtils.isPresent(later, method.getDeclaringClass().getClassLoader())
          && ClassUtils.resolveClassName(later, method.getDeclaringClass().getClassLoader())
              .isAssignableFrom(returned)) {
        throw new IllegalStateException(
            "@Idempotent on "
                + operation
                + " returns "
                + returned.getSimpleName()
                + ", whose work runs after the method returned, outside the claim: it would run"
                + " unguarded. Return the result itself; asynchronous and reactive methods are not"
                + " supported");
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static ResultCodec<Object> codec(Method method, Class<?> userClass, ObjectMapper mapper) {
    Class<?> returned = method.getReturnType();
    if (returned == void.class || returned == Void.class) {
      return (ResultCodec<Object>) (ResultCodec<?>) ResultCodec.none();
    }
    Type type = GenericTypeResolver.resolveType(method.getGenericReturnType(), userClass);
    return new JacksonResultCodec(mapper, mapper.getTypeFactory().constructType(type));
  }
}
