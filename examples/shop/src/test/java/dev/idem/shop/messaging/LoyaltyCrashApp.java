package dev.idem.shop.messaging;

import dev.idem.shop.ShopProperties;
import java.math.BigDecimal;
import java.util.Map;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The shop's loyalty path alone, on PostgreSQL: the payment's event published in a transaction,
 * Spring Modulith's registry, and {@link LoyaltyListener} with Idem's record in its transaction.
 * Run as a child JVM by {@link LoyaltyCrashServicesIT}, it publishes one event and halts itself at
 * the point {@code test.crash} names (before or after the listener's commit), as a SIGKILL would:
 * no finally block, no shutdown hook, no note from the registry that the delivery ended.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableScheduling
@EnableConfigurationProperties(ShopProperties.class)
@Import(MessagingConfig.class)
public class LoyaltyCrashApp {

  /** The listener's transaction, as Spring names it: the method's qualified name. */
  static final String LISTENER_TRANSACTION = LoyaltyListener.class.getName() + ".addPoints";

  static ConfigurableApplicationContext start(String... args) {
    return new SpringApplicationBuilder(LoyaltyCrashApp.class)
        .web(WebApplicationType.NONE)
        .properties(
            Map.of(
                "spring.main.banner-mode", "off",
                "spring.flyway.enabled", "false",
                "spring.ai.mcp.server.enabled", "false",
                "spring.modulith.events.jdbc.schema-initialization.enabled", "true",
                "idem.store", "memory",
                "idem.events.store", "jdbc",
                "idem.jdbc.initialize-schema", "always"))
        .run(args);
  }

  /** Halts the JVM at the crash point of the listener's transaction. */
  @Bean
  TransactionExecutionListener crashPoint(org.springframework.core.env.Environment environment) {
    String at = environment.getProperty("test.crash", "none");
    return new TransactionExecutionListener() {
      @Override
      public void beforeCommit(TransactionExecution transaction) {
        if (at.equals("before-commit") && isListeners(transaction)) {
          halt("INSERTED");
        }
      }

      @Override
      public void afterCommit(TransactionExecution transaction, Throwable failure) {
        if (failure == null && at.equals("after-commit") && isListeners(transaction)) {
          halt("COMMITTED");
        }
      }
    };
  }

  private static boolean isListeners(TransactionExecution transaction) {
    return LISTENER_TRANSACTION.equals(transaction.getTransactionName());
  }

  private static void halt(String line) {
    System.out.println(line); // the parent reads the child's standard output (ChildJvm.awaitLine)
    System.out.flush();
    Runtime.getRuntime().halt(137);
  }

  /** Publishes the event named by {@code test.payment} and waits to be halted. */
  public static void main(String[] args) throws Exception {
    ConfigurableApplicationContext context = start(args);
    String paymentNo = context.getEnvironment().getRequiredProperty("test.payment");
    System.out.println("READY");
    context
        .getBean(TransactionTemplate.class)
        .executeWithoutResult(
            s ->
                context.publishEvent(
                    new PaymentSucceeded(paymentNo, "ORD-" + paymentNo, "alice", BigDecimal.TEN)));
    Thread.sleep(60_000); // the crash point halts the JVM long before; the parent kills it else
  }
}
