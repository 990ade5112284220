package dev.idem.spring.amqp.internal;

import dev.idem.spring.IdemProperties;
import dev.idem.spring.messaging.internal.ListenerBeans;
import dev.idem.spring.messaging.internal.ListenerMethods;
import org.aopalliance.aop.Advice;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.config.BaseRabbitListenerContainerFactory;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.Ordered;
import org.springframework.util.ReflectionUtils;

/**
 * Installs the {@code @IdempotentListener} support: wraps beans with such methods in a proxy that
 * runs the listener advice first (outside any {@code @Transactional} advice of the same bean), and
 * adds the {@link DeliveryBinder} to the advice chain of every listener container factory bean.
 *
 * <p>It runs before Spring AMQP's {@code RabbitListenerAnnotationBeanPostProcessor}, so that the
 * listener endpoints are registered on the proxy rather than on the bare bean.
 */
public final class IdempotentListenerPostProcessor
    extends AbstractBeanFactoryAwareAdvisingPostProcessor
    implements SmartInitializingSingleton, DisposableBean {

  private final DeliveryBinder binder = new DeliveryBinder();
  private ListenerBeans engine;
  private volatile boolean used;

  @SuppressWarnings("NullAway.Init") // engine: set in setBeanFactory, before any use
  public IdempotentListenerPostProcessor() {
    setBeforeExistingAdvisors(true);
    setProxyTargetClass(true);
    setOrder(Ordered.LOWEST_PRECEDENCE - 100);
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    super.setBeanFactory(beanFactory);
    engine =
        new ListenerBeans(
            (ConfigurableListableBeanFactory) beanFactory, IdemProperties::getAmqp, "idem.amqp");
    this.advisor =
        new DefaultPointcutAdvisor(
            ListenerMethods.of(RabbitListener.class),
            new IdempotentListenerInterceptor(binder, engine));
  }

  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    if (bean instanceof BaseRabbitListenerContainerFactory<?> factory) {
      // first, so that it wraps every other advice: one that calls the listener again (the
      // container's retry) runs inside it, with the delivery still bound and counted once
      Advice[] chain = factory.getAdviceChain();
      Advice[] extended = new Advice[chain == null ? 1 : chain.length + 1];
      extended[0] = binder;
      if (chain != null) {
        System.arraycopy(chain, 0, extended, 1, chain.length);
      }
      factory.setAdviceChain(extended);
    }
    ListenerMethods.checkBrokers(AopUtils.getTargetClass(bean));
    refuseChannelParameters(AopUtils.getTargetClass(bean));
    if (isEligible(bean, beanName)) {
      used = true;
    }
    return super.postProcessAfterInitialization(bean, beanName);
  }

  /**
   * Refuses an {@code @IdempotentListener} that takes the delivery's {@code Channel}: it could
   * acknowledge or reject the delivery itself, which Idem would not see. A listener that nacks and
   * returns would have its record completed and its redelivery skipped as a duplicate (the effect
   * lost), and one that acks would be acknowledged twice. Its outcome must be what it returns or
   * throws; Idem acknowledges for it, in MANUAL mode too.
   *
   * @throws IllegalStateException naming the method
   */
  static void refuseChannelParameters(Class<?> type) {
    ReflectionUtils.doWithMethods(
        type,
        method -> {
          if (ListenerMethods.annotation(method) == null) {
            return;
          }
          for (Class<?> parameter : method.getParameterTypes()) {
            if (parameter.getName().equals("com.rabbitmq.client.Channel")) {
              throw new IllegalStateException(
                  "@IdempotentListener "
                      + type.getSimpleName()
                      + "."
                      + method.getName()
                      + " takes the Channel, so it could acknowledge or reject its delivery"
                      + " without Idem seeing it (a nack would be taken for success and the"
                      + " redelivery skipped). Drop the Channel: return to acknowledge, throw to"
                      + " have the delivery rejected or requeued; Idem acknowledges for you");
            }
          }
        });
  }

  /** With listeners to advise, builds what they need now, so that a failure stops the start. */
  @Override
  public void afterSingletonsInstantiated() {
    if (used) {
      engine.start();
    }
  }

  @Override
  public void destroy() {
    engine.close();
  }
}
