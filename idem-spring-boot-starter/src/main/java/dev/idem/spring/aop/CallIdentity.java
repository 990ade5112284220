package dev.idem.spring.aop;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.InvalidKeyException;
import dev.idem.spring.ai.internal.ToolCalls;
import dev.idem.spring.aop.internal.ComparedArguments;
import dev.idem.spring.aop.internal.MethodPlan;
import dev.idem.spring.aop.internal.ToolPlan;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import tools.jackson.databind.ObjectMapper;

/**
 * What identifies an {@code @Idempotent} bean call: its key's value (from the key expression), its
 * scope (the operation, and the caller an {@link IdempotentCallerResolver} or a tool call names)
 * and its fingerprint (of the compared expression or arguments). A key that is blank, cannot be
 * evaluated or is not a valid key value is an {@link InvalidKeyException}.
 */
final class CallIdentity {

  private final ObjectMapper mapper;
  private final @Nullable IdempotentCallerResolver callers;
  private final @Nullable BeanFactory beanFactory;
  private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();

  CallIdentity(
      ObjectMapper mapper,
      @Nullable IdempotentCallerResolver callers,
      @Nullable BeanFactory beanFactory) {
    this.mapper = mapper;
    this.callers = callers;
    this.beanFactory = beanFactory;
  }

  /** The context key and fingerprint expressions of {@code plan} are evaluated in. */
  EvaluationContext context(
      MethodPlan plan, @Nullable Object target, @Nullable Object[] arguments) {
    MethodBasedEvaluationContext context =
        new MethodBasedEvaluationContext(target, plan.method(), arguments, parameterNames);
    if (beanFactory != null) {
      context.setBeanResolver(new BeanFactoryResolver(beanFactory));
    }
    return context;
  }

  /** The key's value, or null when it is absent and not required. */
  static @Nullable String keyValue(MethodPlan plan, EvaluationContext context) {
    Object value = evaluate(plan, Objects.requireNonNull(plan.key(), "a keyed plan"), context);
    String text = value == null ? null : value.toString();
    if (text == null || text.isBlank()) {
      if (!plan.required()) {
        return null;
      }
      ToolPlan tool = plan.tool();
      throw InvalidKeyException.missing(
          tool != null && tool.keyFromCall()
              ? "the tool "
                  + tool.name()
                  + " needs an idempotency key: send the same "
                  + ToolCalls.KEY
                  + " with every retry of a call, in the call's _meta or as its argument"
              : "the key expression of "
                  + plan.operation()
                  + " gave "
                  + (text == null ? "null" : "''"));
    }
    return text;
  }

  /** The fingerprint of a call: of its compared expression or arguments, or none. */
  Fingerprint fingerprint(
      MethodPlan plan, EvaluationContext context, @Nullable Object[] arguments) {
    Expression compared = plan.fingerprint();
    if (compared != null) {
      Object value = evaluate(plan, compared, context);
      return Fingerprint.ofJson(
          plan.operation(), mapper.writeValueAsString(value), plan.ignoredFields());
    }
    if (plan.comparedArguments().isEmpty()) {
      return Fingerprint.NONE;
    }
    String json;
    try {
      json = mapper.writeValueAsString(ComparedArguments.of(plan, arguments));
    } catch (RuntimeException e) {
      throw new IllegalStateException(ComparedArguments.unwritable(plan, e), e);
    }
    return Fingerprint.ofJson(plan.operation(), json, plan.ignoredFields());
  }

  private static @Nullable Object evaluate(
      MethodPlan plan, Expression expression, EvaluationContext context) {
    try {
      return expression.getValue(context);
    } catch (EvaluationException e) {
      throw new InvalidKeyException(
          "could not evaluate '"
              + expression.getExpressionString()
              + "' of "
              + plan.operation()
              + ": "
              + e.getMessage());
    }
  }

  /** The scope of a call's key: the operation, and the caller when one is named. */
  String scope(MethodPlan plan, @Nullable Object[] arguments) {
    if (plan.eventListener()) {
      // an event has no caller: its first delivery may run on a request's thread, its resubmission
      // on a scheduler's, and both must find one record
      return plan.operation();
    }
    String caller = callers == null ? null : callers.resolve(plan.method(), arguments);
    ToolPlan tool = plan.tool();
    if (tool != null) {
      caller = ToolCalls.caller(tool.name(), tool.keyFromCall(), caller);
    }
    return caller == null ? plan.operation() : IdempotencyKey.scope(plan.operation(), caller);
  }
}
