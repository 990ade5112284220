package dev.idem.spring.kafka.internal;

import dev.idem.spring.IdemProperties;
import dev.idem.spring.messaging.internal.ListenerBeans;
import dev.idem.spring.messaging.internal.ListenerMethods;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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
import org.springframework.kafka.transaction.KafkaAwareTransactionManager;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
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

  private static final Logger log = LoggerFactory.getLogger(KafkaListenerPostProcessor.class);

  private final RecordBinder binder = new RecordBinder();
  private final Pointcut pointcut = ListenerMethods.of(KafkaListener.class);
  private ListenerBeans engine;
  private KafkaListenerAdvice advice;
  private volatile boolean used;
  private final List<Object> transactionManagers = new CopyOnWriteArrayList<>();

  @SuppressWarnings("NullAway.Init") // engine and advice: set in setBeanFactory, before any use
  public KafkaListenerPostProcessor() {
    setBeforeExistingAdvisors(true);
    setProxyTargetClass(true);
    setOrder(Ordered.LOWEST_PRECEDENCE - 100);
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    super.setBeanFactory(beanFactory);
    engine =
        new ListenerBeans(
            (ConfigurableListableBeanFactory) beanFactory, IdemProperties::getKafka, "idem.kafka");
    advice = new KafkaListenerAdvice(binder, engine);
    this.advisor = new DefaultPointcutAdvisor(pointcut, advice);
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    if (bean instanceof KafkaAwareTransactionManager<?, ?>) {
      transactionManagers.add(bean);
    }
    if (bean instanceof AbstractKafkaListenerContainerFactory factory
        && factory.getContainerProperties().getKafkaAwareTransactionManager() != null) {
      transactionManagers.add(factory.getContainerProperties().getKafkaAwareTransactionManager());
    }
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

  /**
   * Makes a container's transaction manager tell synchronizations when it ends: the advice
   * completes a record only after the Kafka transaction (that also commits the offset) committed,
   * and releases it when it rolled back. Spring Kafka's {@code KafkaTransactionManager} tells none
   * by default, and a record completed before a commit that never comes would make the redelivery a
   * duplicate whose effect was aborted.
   */
  private static void synchronize(Object manager) {
    if (manager instanceof AbstractPlatformTransactionManager m
        && m.getTransactionSynchronization()
            == AbstractPlatformTransactionManager.SYNCHRONIZATION_NEVER) {
      m.setTransactionSynchronization(
          AbstractPlatformTransactionManager.SYNCHRONIZATION_ON_ACTUAL_TRANSACTION);
      log.info(
          "@IdempotentListener: {} now synchronizes its transactions, so that a record is"
              + " completed only after the Kafka transaction committed",
          m.getClass().getSimpleName());
    }
  }

  /** With listeners to advise, builds what they need now, so that a failure stops the start. */
  @Override
  public void afterSingletonsInstantiated() {
    if (used) {
      engine.start();
      transactionManagers.forEach(KafkaListenerPostProcessor::synchronize);
    }
  }

  @Override
  public void destroy() {
    engine.close();
  }
}
