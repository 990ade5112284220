package dev.idem.spring.messaging.internal;

import java.lang.reflect.Method;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * The {@code key} expression of one {@code @IdempotentListener} method: SpEL over a broker's root
 * object, with the method's arguments as variables and the application's beans resolvable.
 */
public final class MessageKey {

  private static final ParameterNameDiscoverer NAMES = new DefaultParameterNameDiscoverer();

  private final Method method;
  private final @Nullable Expression expression;
  private final @Nullable BeanFactory beanFactory;

  /**
   * @param expression the annotation's key; empty for the broker's own message id
   * @throws org.springframework.expression.ParseException when it does not parse
   */
  public MessageKey(Method method, String expression, @Nullable BeanFactory beanFactory) {
    this.method = method;
    this.expression =
        expression.isEmpty() ? null : new SpelExpressionParser().parseExpression(expression);
    this.beanFactory = beanFactory;
  }

  /** True when the annotation names no expression: the broker's own id is the key. */
  public boolean isDefault() {
    return expression == null;
  }

  /** A description for logs: the expression, or {@code fallback} (the broker's id's source). */
  public String describe(String fallback) {
    return expression == null ? fallback : "key '" + expression.getExpressionString() + "'";
  }

  /**
   * The expression's value over {@code root} and the call's {@code args}, as text; null for null.
   *
   * @throws org.springframework.expression.EvaluationException when it fails
   */
  public @Nullable String evaluate(Object root, @Nullable Object[] args) {
    MethodBasedEvaluationContext context =
        new MethodBasedEvaluationContext(root, method, args, NAMES);
    if (beanFactory != null) {
      context.setBeanResolver(new BeanFactoryResolver(beanFactory));
    }
    Expression key = Objects.requireNonNull(expression, "evaluated only when the key is given");
    Object value = key.getValue(context);
    return value == null ? null : value.toString();
  }
}
