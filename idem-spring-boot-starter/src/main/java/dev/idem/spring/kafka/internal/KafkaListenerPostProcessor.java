package dev.idem.spring.kafka.internal;

import dev.idem.spring.IdemProperties;
import dev.idem.spring.messaging.internal.ListenerEngine;
import dev.idem.spring.messaging.internal.ListenerMethods;
import org.springframework.aop.Pointcut;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.Ordered;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.AbstractKafkaListenerContainerFactory;
import org.springframework.kafka.listener.BatchInterceptor;
import org.springframework.kafka.listener.CompositeBatchInterceptor;
import org.springframework.kafka.listener.CompositeRecordInterceptor;
import org.springframework.kafka.listener.RecordInterceptor;
import org.springframework.util.ReflectionUtils;

/**
 * Installs the {@code @IdempotentListener} support for Spring Kafka: wraps beans with such {@code
 * KafkaListener} methods in a proxy that runs the listener advice first (outside any {@code
 * Transactional} advice of the same bean), checks each such method's signature at start-up, and
 * adds the {@link RecordBinder} to every listener container factory bean, after the interceptors it
 * already has.
 *
 * <p>It runs before Spring Kafka's {@code KafkaListenerAnnotationBeanPostProcessor}, so that the
 * listener endpoints are registered on the proxy rather than on the bare bean.
 */
public final class KafkaListenerPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
    implements SmartInitializingSingleton, DisposableBean {

  private final RecordBinder binder = new RecordBinder();
  private final Pointcut pointcut = ListenerMethods.of(KafkaListener.class);
  private ListenerEngine engine;
  private KafkaListenerAdvice advice;
  private volatile boolean used;

  public KafkaListenerPostProcessor() {
    setBeforeExistingAdvisors(true);
    setProxyTargetClass(true);
    setOrder(Ordered.LOWEST_PRECEDENCE - 100);
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    super.setBeanFactory(beanFactory);
    engine =
        new ListenerEngine(
            (ConfigurableListableBeanFactory) beanFactory, IdemProperties::getKafka, "idem.kafka");
    advice = new KafkaListenerAdvice(binder, engine);
    this.advisor = new DefaultPointcutAdvisor(pointcut, advice);
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    if (bean instanceof AbstractKafkaListenerContainerFactory factory) {
      RecordInterceptor records = factory.getRecordInterceptor();
      factory.setRecordInterceptor(
          records == null ? binder : new CompositeRecordInterceptor(records, binder));
      BatchInterceptor batches = factory.getBatchInterceptor();
      factory.setBatchInterceptor(
          batches == null ? binder : new CompositeBatchInterceptor(batches, binder));
    }
    Class<?> type = AopUtils.getTargetClass(bean);
    ReflectionUtils.doWithMethods(
        type, advice::register, method -> pointcut.getMethodMatcher().matches(method, type));
    ListenerMethods.checkBrokers(AopUtils.getTargetClass(bean));
    if (isEligible(bean, beanName)) {
      used = true;
    }
    return super.postProcessAfterInitialization(bean, beanName);
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
