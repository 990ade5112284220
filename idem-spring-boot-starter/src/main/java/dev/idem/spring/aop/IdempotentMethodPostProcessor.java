package dev.idem.spring.aop;

import dev.idem.spring.aop.internal.EmbeddedValues;
import dev.idem.spring.aop.internal.IdempotentMethodPointcut;
import dev.idem.spring.aop.internal.MethodPlan;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.util.function.SingletonSupplier;

/**
 * Proxies every bean that has {@link dev.idem.spring.Idempotent @Idempotent} methods (controllers
 * excepted) and runs those methods through an {@link IdempotentMethodInterceptor}.
 *
 * <p>The advice is added last to a bean that is already proxied, so it runs inside every other
 * advice, {@code @Transactional} above all: with the JDBC store on the application's DataSource the
 * record is written in the method's transaction (join mode) and commits or rolls back with it; with
 * any other store the interceptor holds the outcome until that transaction ends. The annotations
 * are checked when a bean is proxied: a method without a key expression stops the application at
 * startup. The interceptor is looked up at the first call, so that this post-processor, created
 * early, pulls no store or DataSource into existence before their time.
 */
public class IdempotentMethodPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {

  private static final long serialVersionUID = 1L;

  private final IdempotentMethodPointcut pointcut = new IdempotentMethodPointcut();

  /**
   * @param interceptor supplies the interceptor at the first call of an annotated method
   */
  public IdempotentMethodPostProcessor(Supplier<? extends MethodInterceptor> interceptor) {
    Supplier<? extends MethodInterceptor> once = SingletonSupplier.of(interceptor);
    MethodInterceptor lazy = invocation -> once.get().invoke(invocation);
    this.advisor = new DefaultPointcutAdvisor(pointcut, lazy);
  }

  /**
   * Also checks the annotations of an eligible class, so that a method without a key expression, or
   * with a duration that is not one, fails the application's startup.
   *
   * @throws IllegalStateException when an annotated method names no key expression or a wrong
   *     duration
   */
  private UnaryOperator<String> placeholders() {
    ConfigurableListableBeanFactory factory = beanFactory;
    return factory != null ? EmbeddedValues.resolver(factory) : UnaryOperator.identity();
  }

  @Override
  protected boolean isEligible(Class<?> targetClass) {
    boolean eligible = super.isEligible(targetClass);
    if (eligible) {
      MethodPlan.requireKeys(targetClass, pointcut, placeholders());
    }
    return eligible;
  }
}
