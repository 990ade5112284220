package dev.idem.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.spring.autoconfigure.internal.StoreUnavailableException;
import dev.idem.spring.kafka.internal.KafkaListenerPostProcessor;
import dev.idem.spring.messaging.IdempotentListener;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.listener.CompositeRecordInterceptor;
import org.springframework.kafka.listener.RecordInterceptor;

class IdemKafkaAutoConfigurationTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(IdemAutoConfiguration.class, IdemKafkaAutoConfiguration.class));

  /** A listener bean; no container consumes for it in these tests. */
  public static class Listener {
    @IdempotentListener("orders")
    @KafkaListener(topics = "orders")
    public void onRecord(String body) {}

    @IdempotentListener("orders")
    @KafkaListener(topics = "orders", batch = "true")
    public void onBatch(List<String> bodies) {}

    public void notAdvised(String body) {}
  }

  /** A batch listener on {@code ConsumerRecords}, which the advice cannot pass on filtered. */
  public static class RecordsListener {
    @IdempotentListener("orders")
    @KafkaListener(topics = "orders", batch = "true")
    public void onBatch(ConsumerRecords<String, String> records) {}
  }

  /** A batch listener with a list of headers beside its payloads. */
  public static class HeaderListListener {
    @IdempotentListener("orders")
    @KafkaListener(topics = "orders", batch = "true")
    public void onBatch(
        List<String> bodies,
        @org.springframework.messaging.handler.annotation.Header("kafka_receivedMessageKey")
            List<String> keys) {}
  }

  /** A listener without a broker's listener annotation: nothing would guard it. */
  public static class UnboundListener {
    @IdempotentListener("orders")
    public void onEvent(String body) {}
  }

  /** An application's own record interceptor. */
  public static class OwnInterceptor implements RecordInterceptor<Object, Object> {
    @Override
    public org.apache.kafka.clients.consumer.ConsumerRecord<Object, Object> intercept(
        org.apache.kafka.clients.consumer.ConsumerRecord<Object, Object> record,
        org.apache.kafka.clients.consumer.Consumer<Object, Object> consumer) {
      return record;
    }
  }

  @Test
  void beansWithIdempotentListenerMethodsAreProxiedAndFactoriesGetTheRecordBinder() {
    runner
        .withBean(Listener.class)
        .withBean(
            ConcurrentKafkaListenerContainerFactory.class,
            () -> {
              ConcurrentKafkaListenerContainerFactory<Object, Object> factory =
                  new ConcurrentKafkaListenerContainerFactory<>();
              factory.setRecordInterceptor(new OwnInterceptor());
              return factory;
            })
        .run(
            context -> {
              assertThat(context).hasSingleBean(KafkaListenerPostProcessor.class);
              assertThat(AopUtils.isAopProxy(context.getBean(Listener.class))).isTrue();
              // the application's interceptor is kept, the binder runs after it
              assertThat(
                      context
                          .getBean(ConcurrentKafkaListenerContainerFactory.class)
                          .getRecordInterceptor())
                  .isInstanceOf(CompositeRecordInterceptor.class);
            });
  }

  @Test
  void aBatchListenerOnConsumerRecordsIsRefusedAtStartUp() {
    runner
        .withBean(RecordsListener.class)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("takes ConsumerRecords"));
  }

  @Test
  void aBatchListenerWithAListOfHeadersIsRefusedAtStartUp() {
    runner
        .withBean(HeaderListListener.class)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("takes a list of headers"));
  }

  @Test
  void anIdempotentListenerThatNoBrokerCallsIsRefusedAtStartUp() {
    runner
        .withBean(UnboundListener.class)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("neither a @RabbitListener nor a @KafkaListener"));
  }

  @Test
  void aListenerStoreOnJdbcWithoutADataSourceIsRefusedAtStartUp() {
    runner
        .withBean(Listener.class)
        .withPropertyValues("idem.kafka.store=jdbc", "idem.store=memory")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("idem.kafka.store is jdbc, but the application has no"));
  }

  /** An H2 database, its transaction manager, and a second manager of nothing in particular. */
  @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
  static class TwoTransactionManagers {
    @org.springframework.context.annotation.Bean
    javax.sql.DataSource dataSource() {
      return new org.springframework.jdbc.datasource.DriverManagerDataSource(
          "jdbc:h2:mem:kafka-tm-" + java.util.UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
    }

    @org.springframework.context.annotation.Bean
    org.springframework.transaction.PlatformTransactionManager otherTransactionManager() {
      return new OtherTransactionManager();
    }
  }

  /** A transaction manager of some other resource (Kafka's, say); never used. */
  static class OtherTransactionManager extends dev.idem.spring.ResourcelessTransactions {
    private static final long serialVersionUID = 1L;
  }

  /** The H2 database's own transaction manager. */
  @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
  static class DataSourceTransactionManagerOfIt {
    @org.springframework.context.annotation.Bean
    org.springframework.transaction.PlatformTransactionManager transactionManager(
        javax.sql.DataSource dataSource) {
      return new org.springframework.jdbc.datasource.DataSourceTransactionManager(dataSource);
    }
  }

  @Test
  void aListenerStoreOnJdbcFindsTheDataSourcesTransactionManagerBesideAnother() {
    runner
        .withBean(Listener.class)
        .withUserConfiguration(TwoTransactionManagers.class, DataSourceTransactionManagerOfIt.class)
        .withPropertyValues(
            "idem.kafka.store=jdbc", "idem.store=memory", "idem.jdbc.initialize-schema=always")
        .run(context -> assertThat(context).hasNotFailed());
  }

  @Test
  void aListenerStoreOnJdbcWithoutATransactionManagerOfTheDataSourceIsRefusedAtStartUp() {
    runner
        .withBean(Listener.class)
        .withUserConfiguration(TwoTransactionManagers.class)
        .withBean(
            "secondOther",
            org.springframework.transaction.PlatformTransactionManager.class,
            OtherTransactionManager::new)
        .withPropertyValues(
            "idem.kafka.store=jdbc", "idem.store=memory", "idem.jdbc.initialize-schema=always")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasMessageContaining("idem.kafka.store is jdbc, but no transaction manager"));
  }

  @Test
  void offWithTheProperty() {
    runner
        .withBean(Listener.class)
        .withPropertyValues("idem.kafka.enabled=false")
        .run(
            context -> {
              assertThat(context).doesNotHaveBean(KafkaListenerPostProcessor.class);
              assertThat(AopUtils.isAopProxy(context.getBean(Listener.class))).isFalse();
            });
  }
}
