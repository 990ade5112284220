package dev.idem.spring.autoconfigure;

import dev.idem.core.Idempotency;
import dev.idem.core.resume.Completer;
import dev.idem.core.resume.ResumeLog;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.spring.IdemAsyncProperties;
import dev.idem.spring.IdemCompleterProperties;
import dev.idem.spring.IdemPolicies;
import dev.idem.spring.IdemProperties;
import dev.idem.spring.IdemThreads;
import dev.idem.spring.InFlightWork;
import dev.idem.spring.StoreCallExecutor;
import dev.idem.spring.aop.IdempotentCallerResolver;
import dev.idem.spring.aop.IdempotentMethodInterceptor;
import dev.idem.spring.aop.IdempotentMethodPostProcessor;
import dev.idem.spring.aop.ResumableMethods;
import dev.idem.spring.aop.StepMethods;
import dev.idem.spring.aop.internal.JsonMissingCheck;
import dev.idem.spring.aop.internal.LaterResults;
import dev.idem.spring.autoconfigure.internal.ReactiveControllersCheck;
import dev.idem.spring.autoconfigure.internal.ResumeLogs;
import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@link dev.idem.spring.Idempotent @Idempotent} on any bean method: a post-processor that proxies
 * annotated beans and the interceptor that runs their methods through the engine, storing return
 * values with the application's {@link JsonMapper} (a default one when there is none). Needs Spring
 * AOP; without Jackson 3 a bean with annotated methods fails at startup rather than running them
 * unguarded.
 */
@AutoConfiguration(
    after = IdemAutoConfiguration.class,
    afterName = "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration")
@ConditionalOnClass(MethodInterceptor.class)
public class IdemAopAutoConfiguration {

  /** The advice, with Jackson 3 to store return values. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(ObjectMapper.class)
  static class WithJson {

    @Bean
    @ConditionalOnMissingBean
    IdempotentMethodInterceptor idempotentMethodInterceptor(
        Idempotency idempotency,
        IdemPolicies policies,
        ObjectProvider<JsonMapper> mapper,
        ObjectProvider<IdempotentCallerResolver> callers,
        BeanFactory beanFactory,
        ObjectProvider<InFlightWork> inFlight,
        StoreCallExecutor storeCalls,
        IdemAsyncProperties async) {
      InFlightWork counted = inFlight.getIfAvailable(InFlightWork::new);
      return new IdempotentMethodInterceptor(
          idempotency,
          policies,
          mapper.getIfUnique(() -> JsonMapper.builder().build()),
          callers.getIfUnique(),
          beanFactory,
          counted,
          new LaterResults(idempotency, storeCalls, counted, async.getMaxElements()));
    }

    /**
     * Registers the resumable methods with a completer, built on the application's {@link
     * ResumeLog} bean or the log beside the store, and runs its passes.
     */
    @Bean
    @ConditionalOnMissingBean
    ResumableMethods idemResumableMethods(
        ListableBeanFactory beans,
        IdempotentMethodInterceptor interceptor,
        Idempotency idempotency,
        ObjectProvider<ResumeLog> logs,
        ObjectProvider<IdempotencyStore> store,
        IdemProperties properties,
        IdemThreads threads) {
      IdemCompleterProperties settings = properties.getCompleter();
      return new ResumableMethods(
          beans,
          interceptor,
          () -> {
            ResumeLog log =
                logs.getIfUnique(
                    () -> {
                      IdempotencyStore built = store.getIfUnique();
                      return built == null
                          ? null
                          : ResumeLogs.of(built, beans, properties.getJdbc());
                    });
            return log == null
                ? null
                : Completer.builder(idempotency, log)
                    .maxAttempts(settings.getMaxAttempts())
                    .backoff(settings.getFirstBackoff(), settings.getMaxBackoff())
                    .batch(settings.getBatch())
                    .build();
          },
          settings.getInterval(),
          threads);
    }

    /** The names of the application's step methods, for the endpoint's read of a key. */
    @Bean
    @ConditionalOnMissingBean
    StepMethods idemStepMethods(
        ListableBeanFactory beans, IdempotentMethodInterceptor interceptor) {
      return new StepMethods(beans, interceptor);
    }

    /**
     * Builds the event listeners' own JDBC engine at start-up when {@code idem.events.store} is
     * {@code jdbc}, so that a missing DataSource or transaction manager stops the start.
     */
    @Bean
    @ConditionalOnProperty(prefix = "idem.events", name = "store", havingValue = "jdbc")
    SmartInitializingSingleton idemEventEngineStart(
        ObjectProvider<IdempotentMethodInterceptor> interceptor) {
      return () -> interceptor.getObject().startEventEngine();
    }

    /** Runs the latest cron slot each node missed while it was down, when asked to. */
    @Bean
    @ConditionalOnClass(name = "org.springframework.boot.context.event.ApplicationReadyEvent")
    dev.idem.spring.aop.internal.ScheduledCatchUp idemScheduledCatchUp(
        dev.idem.spring.IdemProperties properties) {
      return new dev.idem.spring.aop.internal.ScheduledCatchUp(
          () ->
              properties.getScheduled().getMissed()
                  == dev.idem.spring.IdemProperties.Scheduled.Missed.RUN_LATEST);
    }

    /** Static, as every post-processor: it must not need this configuration to be created first. */
    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static IdempotentMethodPostProcessor idempotentMethodPostProcessor(
        ObjectProvider<IdempotentMethodInterceptor> interceptor, Environment environment) {
      IdempotentMethodPostProcessor postProcessor =
          new IdempotentMethodPostProcessor(interceptor::getObject);
      postProcessor.setProxyTargetClass(
          environment.getProperty("spring.aop.proxy-target-class", Boolean.class, true));
      return postProcessor;
    }
  }

  /**
   * In a WebFlux application whose filter is off ({@code idem.http.enabled=false}),
   * {@code @Idempotent} controllers are refused at startup.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
  @ConditionalOnProperty(prefix = "idem.http", name = "enabled", havingValue = "false")
  static class Reactive {

    @Bean
    static ReactiveControllersCheck idemReactiveControllersCheck(ListableBeanFactory beans) {
      return new ReactiveControllersCheck(beans);
    }
  }

  /** Without Jackson 3: annotated bean methods are refused at startup. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnMissingClass("tools.jackson.databind.ObjectMapper")
  static class WithoutJson {

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static JsonMissingCheck idempotentMethodsNeedJson() {
      return new JsonMissingCheck();
    }
  }
}
