package dev.idem.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.spring.StartFailures;
import dev.idem.spring.amqp.internal.IdempotentListenerPostProcessor;
import dev.idem.spring.messaging.IdempotentListener;
import org.aopalliance.aop.Advice;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.config.SimpleRabbitListenerContainerFactory;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;

class IdemAmqpAutoConfigurationTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(IdemAutoConfiguration.class, IdemAmqpAutoConfiguration.class));

  /** A listener bean; no container consumes for it in these tests. */
  public static class Listener {
    @IdempotentListener("orders")
    @RabbitListener(queues = "orders")
    public void onMessage(String body) {}

    public void notAdvised(String body) {}
  }

  /** A listener that could acknowledge or reject its delivery itself, which Idem would not see. */
  public static class SelfAcknowledgingListener {
    @IdempotentListener("orders")
    @RabbitListener(queues = "orders", ackMode = "MANUAL")
    public void onMessage(String body, com.rabbitmq.client.Channel channel) {}
  }

  @Test
  void aListenerThatTakesTheChannelStopsTheStartInsteadOfLosingItsOwnNack() {
    runner
        .withBean(SelfAcknowledgingListener.class)
        .run(
            context ->
                StartFailures.stoppedTheStart(
                    context, "SelfAcknowledgingListener.onMessage", "Channel"));
  }

  @Test
  void beansWithIdempotentListenerMethodsAreProxiedAndContainerFactoriesGetTheDeliveryBinder() {
    runner
        .withBean(Listener.class)
        .withBean(SimpleRabbitListenerContainerFactory.class)
        .run(
            context -> {
              assertThat(context).hasSingleBean(IdempotentListenerPostProcessor.class);
              assertThat(AopUtils.isAopProxy(context.getBean(Listener.class))).isTrue();
              Advice[] chain =
                  context.getBean(SimpleRabbitListenerContainerFactory.class).getAdviceChain();
              assertThat(chain).hasSize(1);
            });
  }

  /** A listener whose method is also {@code @Transactional}. */
  public static class TransactionalListener {
    @Transactional
    @IdempotentListener("orders")
    @RabbitListener(queues = "orders")
    public void onMessage(String body) {}
  }

  @Configuration(proxyBeanMethods = false)
  @EnableTransactionManagement
  static class Transactions {
    @Bean
    PlatformTransactionManager transactionManager() {
      return new dev.idem.spring.ResourcelessTransactions(); // never used: only the proxy counts
    }
  }

  @Test
  void theListenerAdviceRunsOutsideTheTransactionAdviceOfTheSameBean() {
    runner
        .withUserConfiguration(Transactions.class)
        .withBean(TransactionalListener.class)
        .run(
            context -> {
              Advised proxy = (Advised) context.getBean(TransactionalListener.class);
              assertThat(proxy.getAdvisors()).hasSizeGreaterThan(1);
              assertThat(proxy.getAdvisors()[0].getAdvice().getClass().getSimpleName())
                  .isEqualTo("IdempotentListenerInterceptor");
            });
  }

  @Test
  void anIdempotentListenerCalledOutsideAListenerContainerIsRefused() {
    runner
        .withBean(Listener.class)
        .run(
            context -> {
              Listener listener = context.getBean(Listener.class);
              assertThatThrownBy(() -> listener.onMessage("body"))
                  .isInstanceOf(IllegalStateException.class)
                  .hasMessageContaining("outside a listener container");
              listener.notAdvised("body");
            });
  }

  @Test
  void switchedOffByProperty() {
    runner
        .withBean(Listener.class)
        .withPropertyValues("idem.amqp.enabled=false")
        .run(
            context -> {
              assertThat(context).doesNotHaveBean(IdempotentListenerPostProcessor.class);
              assertThat(AopUtils.isAopProxy(context.getBean(Listener.class))).isFalse();
            });
  }

  @Test
  void absentWithoutSpringAmqp() {
    runner
        .withClassLoader(new FilteredClassLoader(RabbitListener.class))
        .run(context -> assertThat(context).doesNotHaveBean(IdempotentListenerPostProcessor.class));
  }
}
