package dev.idem.spring.aop.internal;

import dev.idem.core.IdempotencyConfig;
import dev.idem.core.ResultCodec;
import dev.idem.spring.IdemPolicies;
import dev.idem.spring.Idempotent;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
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
 * @param key the parsed key expression, or null for a scheduled method keyed by its slot and for a
 *     step
 * @param fingerprint the parsed fingerprint expression, or null when none is named
 * @param comparedArguments the parameter names whose arguments make the fingerprint when no
 *     expression is named: every parameter, or none when arguments are not compared
 * @param ignoredFields JSON paths left out of the fingerprint
 * @param config the engine config of the operation
 * @param declaresTransaction whether the method's own declaration puts its effects in a transaction
 *     ({@code @Transactional} on it or its class, not with {@code NOT_SUPPORTED} or {@code NEVER}):
 *     only then does its outcome follow a transaction it runs in
 * @param joinsCallerTransaction whether its declared transaction joins one its caller runs (a
 *     step's effects then roll back with the caller's, and cannot be stored at once)
 * @param shape whether the result comes now or later (a stage, a {@code Mono}, a {@code Flux})
 * @param codec stores and reads back the result
 * @param slot the slots of a {@code @Scheduled} method whose annotation names no key, or null
 * @param resumable whether a completer finishes its calls that nobody came back for
 * @param tool the Spring AI tool it serves, whose caller is the agent that called it, or null
 * @param eventListener whether it listens to application events, whose records may live in a store
 *     of their own ({@code idem.events.store})
 */
public record MethodPlan(
    Method method,
    String operation,
    boolean required,
    @Nullable Expression key,
    @Nullable Expression fingerprint,
    List<String> comparedArguments,
    Set<String> ignoredFields,
    IdempotencyConfig config,
    boolean declaresTransaction,
    boolean joinsCallerTransaction,
    ResultShape shape,
    ResultCodec<@Nullable Object> codec,
    @Nullable ScheduledSlot slot,
    boolean resumable,
    @Nullable ToolPlan tool,
    boolean eventListener) {

  private static final String TRANSACTIONAL =
      "org.springframework.transaction.annotation.Transactional";

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
    String toolName = ToolMethods.toolName(specific);
    List<String> names = ComparedArguments.names(specific);
    String keyText = keyExpression(operation, specific, idempotent, toolName, names);
    requireKey(operation, keyText, specific);
    boolean keyless = keyText.isBlank();
    // an event is named by its key: a redelivery read back from JSON (a set in another order, a
    // number at another scale) must not look like another request, and an ApplicationEvent's
    // source is no JSON at all; a listener compares what its fingerprint expression names
    boolean keyedByEvent = toolName == null && EventListenerKeys.isListener(specific);
    ScheduledSlot slot =
        keyless && ScheduledSlot.isScheduled(specific)
            ? ScheduledSlot.of(operation, specific, policies::resolvePlaceholders)
            : null;
    Expression fingerprint =
        idempotent.fingerprint().isBlank()
            ? null
            : parser.parseExpression(idempotent.fingerprint());
    Set<String> ignored = new LinkedHashSet<>(policies.ignoredFields(operation));
    ignored.addAll(Set.of(idempotent.ignoreFields()));
    ResultShape shape = ResultShape.of(operation, specific);
    return new MethodPlan(
        specific,
        operation,
        idempotent.required(),
        keyless ? null : parser.parseExpression(keyText),
        fingerprint,
        fingerprint == null && idempotent.compareArguments() && !keyedByEvent
            ? (toolName != null ? ToolMethods.compared(specific, names) : names)
            : List.of(),
        Set.copyOf(ignored),
        policies.forAnnotation(operation, idempotent),
        DeclaredTransaction.of(specific, userClass),
        DeclaredTransaction.joinsCaller(specific, userClass),
        shape,
        codec(shape.storedType(specific, userClass), mapper),
        slot,
        idempotent.resumable(),
        toolName == null ? null : new ToolPlan(toolName, idempotent.key().isBlank()),
        EventListenerKeys.isListener(specific));
  }

  // a tool that names no key takes the one its call sends, an event listener its event's identity
  private static String keyExpression(
      String operation,
      Method method,
      Idempotent idempotent,
      @Nullable String toolName,
      List<String> names) {
    if (!idempotent.key().isBlank()) {
      return idempotent.key();
    }
    if (toolName != null) {
      return ToolMethods.keyExpression(toolName, names);
    }
    return EventListenerKeys.isListener(method)
        ? EventListenerKeys.keyExpression(operation, method)
        : "";
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
        String toolName = ToolMethods.toolName(specific);
        if (toolName != null) {
          ToolMethods.check(operation, specific, idempotent, placeholders);
        }
        String keyText =
            keyExpression(
                operation, specific, idempotent, toolName, ComparedArguments.names(specific));
        requireKey(operation, keyText, specific);
        requireResumable(operation, idempotent, specific);
        requireListenerRunsNow(operation, specific);
        if (keyText.isBlank() && ScheduledSlot.isScheduled(specific)) {
          ScheduledSlot.of(operation, specific, placeholders);
        }
        ComparedArguments.check(operation, specific, idempotent);
        requireFollowedResult(operation, specific, userClass);
        IdemPolicies.checkAnnotation(operation, idempotent, placeholders);
      }
    }
  }

  private static Idempotent annotation(Method method, Method specific) {
    Idempotent idempotent = AnnotatedElementUtils.findMergedAnnotation(specific, Idempotent.class);
    if (idempotent == null) {
      idempotent = AnnotatedElementUtils.findMergedAnnotation(method, Idempotent.class);
    }
    if (idempotent == null) {
      throw new IllegalStateException(method + " is not annotated with @Idempotent");
    }
    return idempotent;
  }

  private static String operation(Method method, Class<?> userClass, Idempotent idempotent) {
    return idempotent.operation().isEmpty()
        ? userClass.getSimpleName() + "." + method.getName()
        : idempotent.operation();
  }

  /** True for a method that names no key and has no slot: a step of the guarded call it runs in. */
  public boolean isStep() {
    return key == null && slot == null;
  }

  // A method may name none: a scheduled one's slot is its key, and any other is a step of the
  // guarded call it runs in; either for a run that ends when it returns (one that ends later could
  // not be followed to another instance's end, nor be a step, which blocks).
  private static void requireKey(String operation, String key, Method method) {
    if (!key.isBlank()) {
      return;
    }
    if (!ScheduledSlot.isScheduled(method)
        && ResultShape.of(operation, method) != ResultShape.NOW) {
      throw new IllegalStateException(
          "@Idempotent on "
              + operation
              + " names no key, so it is a step of the guarded call it runs in, which must end"
              + " when it returns, not later ("
              + method.getReturnType().getSimpleName()
              + "); return the value itself, or name a key expression such as key = \"#orderNo\"");
    }
    if (ResultShape.of(operation, method) != ResultShape.NOW) {
      throw new IllegalStateException(
          "@Idempotent on "
              + operation
              + " names no key, and its run ends after it returns ("
              + method.getReturnType().getSimpleName()
              + "), so a slot held by a node that dies could not be taken over; return void, or"
              + " name a key expression");
    }
  }

  // An event listener's record lives where idem.events.store says, which the engine's later
  // results and completer do not follow; its redeliveries come from the event's publisher.
  private static void requireListenerRunsNow(String operation, Method method) {
    if (!EventListenerKeys.isListener(method)) {
      return;
    }
    Idempotent idempotent = AnnotatedElementUtils.findMergedAnnotation(method, Idempotent.class);
    if (method.getReturnType() != void.class
        && ResultShape.of(operation, method) == ResultShape.NOW) {
      throw new IllegalStateException(
          "@Idempotent on the event listener "
              + operation
              + " returns "
              + method.getReturnType().getSimpleName()
              + ", which Spring publishes as a new event, on every delivery the listener replays"
              + " too; return void and publish from the body");
    }
    if ((idempotent != null && idempotent.resumable())
        || ResultShape.of(operation, method) != ResultShape.NOW) {
      throw new IllegalStateException(
          "@Idempotent on the event listener "
              + operation
              + " is resumable or returns a result that ends later ("
              + method.getReturnType().getSimpleName()
              + "): a listener's run must end when it returns, and its redeliveries come from"
              + " the event's publisher (an event publication registry), not a completer");
    }
  }

  // A completer runs the call again from its key and arguments, and waits for its answer.
  private static void requireResumable(String operation, Idempotent idempotent, Method method) {
    if (!idempotent.resumable()) {
      return;
    }
    String why =
        idempotent.key().isBlank()
            ? "names no key expression, and a completer finds a call again by its key"
            : ResultShape.of(operation, method) != ResultShape.NOW
                ? "returns "
                    + method.getReturnType().getSimpleName()
                    + ", an answer that ends later, which a completer cannot wait for"
                : null;
    if (why != null) {
      throw new IllegalStateException(
          "@Idempotent(resumable = true) on "
              + operation
              + " "
              + why
              + "; name a key expression"
              + " and return the value itself");
    }
  }

  /**
   * Refuses a result the advice cannot follow to its end, and a reactive one in a transaction: a
   * reactive transaction commits after the publisher the advice sees has ended, so a stored answer
   * could outlive effects that were rolled back.
   */
  private static void requireFollowedResult(String operation, Method method, Class<?> userClass) {
    ResultShape shape = ResultShape.of(operation, method);
    if ((shape == ResultShape.MONO || shape == ResultShape.FLUX)
        && ClassUtils.isPresent(TRANSACTIONAL, method.getDeclaringClass().getClassLoader())) {
      Class<? extends Annotation> transactional =
          ClassUtils.resolveClassName(TRANSACTIONAL, method.getDeclaringClass().getClassLoader())
              .asSubclass(Annotation.class);
      if (AnnotatedElementUtils.hasAnnotation(method, transactional)
          || AnnotatedElementUtils.hasAnnotation(userClass, transactional)) {
        throw new IllegalStateException(
            "@Idempotent on "
                + operation
                + " returns a "
                + method.getReturnType().getSimpleName()
                + " in a @Transactional method: a reactive transaction commits after the answer is"
                + " stored, so a rollback would leave a stored answer for effects that are gone."
                + " Put the transaction inside the method (TransactionalOperator on the work)");
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static ResultCodec<@Nullable Object> codec(Type stored, ObjectMapper mapper) {
    if (stored == void.class || stored == Void.class) {
      return (ResultCodec<@Nullable Object>) (ResultCodec<?>) ResultCodec.none();
    }
    return new JacksonResultCodec(mapper, mapper.getTypeFactory().constructType(stored));
  }
}
