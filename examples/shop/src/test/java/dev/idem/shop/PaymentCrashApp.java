package dev.idem.shop;

import dev.idem.shop.gateway.FakeGateway;
import dev.idem.shop.payment.Settlement;
import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The whole shop, run as a child JVM by {@link PaymentCrashServicesIT}, that halts itself (as a
 * SIGKILL would: no finally block, no shutdown hook) at the point of a payment's flow {@code
 * test.crash} names:
 *
 * <ul>
 *   <li>{@code before-charge}: the payment PROCESSING, the charge step claimed, the gateway not
 *       called;
 *   <li>{@code in-charge}: the gateway charged and recorded the payment, its answer not back;
 *   <li>{@code after-charge}: the charge step's outcome stored, the payment not settled;
 *   <li>{@code after-settle}: the settlement (order PAID, its event) committed, the flow's answer
 *       not stored.
 * </ul>
 *
 * It prints {@code READY <port>} once it serves HTTP and {@code AT <point>} as it halts.
 */
public final class PaymentCrashApp {

  private PaymentCrashApp() {}

  public static void main(String[] args) {
    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(ShopApplication.class, CrashPoints.class).run(args);
    print("READY " + context.getEnvironment().getProperty("local.server.port"));
  }

  /** Wraps the gateway and the settlement with the crash point, when one is named. */
  @Configuration(proxyBeanMethods = false)
  static class CrashPoints {

    @Bean
    static BeanPostProcessor crashPoints(Environment environment) {
      String at = environment.getProperty("test.crash", "none");
      return new BeanPostProcessor() {
        @Override
        public Object postProcessAfterInitialization(Object bean, String name) {
          if (bean instanceof FakeGateway) {
            return around(bean, "charge", 4, at, "before-charge", "in-charge");
          }
          if (bean instanceof Settlement) {
            return around(bean, "settle", 2, at, "after-charge", "after-settle");
          }
          return bean;
        }
      };
    }

    // Halts before the bean's method at point `before`, after it at point `after`.
    private static Object around(
        Object bean, String method, int parameters, String at, String before, String after) {
      if (!at.equals(before) && !at.equals(after)) {
        return bean;
      }
      MethodInterceptor crash =
          invocation -> {
            boolean watched =
                invocation.getMethod().getName().equals(method)
                    && invocation.getMethod().getParameterCount() == parameters;
            if (watched && at.equals(before)) {
              halt(before);
            }
            Object result = invocation.proceed();
            if (watched && at.equals(after)) {
              halt(after);
            }
            return result;
          };
      ProxyFactory proxy = new ProxyFactory(bean);
      proxy.setProxyTargetClass(true);
      proxy.addAdvice(crash);
      return proxy.getProxy();
    }
  }

  private static void halt(String point) {
    print("AT " + point);
    Runtime.getRuntime().halt(137);
  }

  private static void print(String line) {
    System.out.println(line); // the parent reads the child's standard output (ChildJvm.awaitLine)
    System.out.flush();
  }
}
