package dev.idem.spring.aop;

import dev.idem.spring.aop.internal.IdempotentMethodPointcut;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.util.function.SingletonSupplier;

/**
 * Proxies every bean that has {@link dev.idem.spring.Idempotent @Idempotent} methods (controllers
 * excepted) and runs those methods through an {@link IdempotentMethodInterceptor}.
 *
 * <p>The advice is added last to a bean that is already proxied, so it runs inside every other
 * advice, {@code @Transactional} above all: with the JDBC store on the application's DataSource the
 * record is written in the method's transaction (join mode) and commits or rolls back with it. The
 * interceptor is looked up at the first call, so that this post-processor, created early, pulls no
 * store or DataSource into existence before their time.
 */
public class IdempotentMethodPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {

  private static final long serialVersionUID = 1L;

  /**
   * @param interceptor supplies the interceptor at the first call of an annotated method
   */
  public IdempotentMethodPostProcessor(Supplier<? extends MethodInterceptor> interceptor) {
    Supplier<? extends MethodInterceptor> once = SingletonSupplier.of(interceptor);
    MethodInterceptor lazy = invocation -> once.get().invoke(invocation);
    this.advisor = new DefaultPointcutAdvisor(new IdempotentMethodPointcut(), lazy);
  }
}
