package dev.idem.spring.ai;

import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.spring.Idempotent;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.mcp.annotation.McpMeta;
import org.springframework.ai.mcp.annotation.McpProgressToken;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.mcp.annotation.McpToolParam;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.annotation.ToolParam;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * An MCP server with two tools an agent may call twice: {@code place_order}, whose schema documents
 * an {@code idempotencyKey} argument, and {@code pay}, whose key comes in the call's {@code _meta}
 * and which takes Spring AI's {@code ToolContext}. HTTP Basic is optional: a call with credentials
 * has a principal, one without is anonymous.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(
    excludeName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
public class ToolShop {

  @Bean
  IdempotencyStore store() {
    return new InMemoryIdempotencyStore();
  }

  @Bean
  Tools tools() {
    return new Tools();
  }

  @Bean
  ToolCallbackProvider toolCallbacks(Tools tools) {
    return MethodToolCallbackProvider.builder().toolObjects(tools).build();
  }

  @Bean
  SecurityFilterChain optionalBasic(HttpSecurity http) throws Exception {
    return http.authorizeHttpRequests(requests -> requests.anyRequest().permitAll())
        .httpBasic(Customizer.withDefaults())
        .csrf(csrf -> csrf.disable())
        .build();
  }

  @Bean
  UserDetailsService agents() {
    return new InMemoryUserDetailsManager(
        User.withUsername("alice").password("{noop}alice-secret").roles("AGENT").build(),
        User.withUsername("bob").password("{noop}bob-secret").roles("AGENT").build());
  }

  /** An order as the tool answers it. */
  record Placed(String orderNo, String item, int quantity) {}

  /** The tools; their effects are counted. Methods, not fields: the bean is a CGLIB proxy. */
  public static class Tools {

    private final AtomicInteger orders = new AtomicInteger();
    private final AtomicInteger payments = new AtomicInteger();
    private final AtomicInteger refunds = new AtomicInteger();
    private final AtomicInteger cancels = new AtomicInteger();
    private volatile @Nullable CountDownLatch paying;
    private volatile @Nullable CountDownLatch payStarted;

    int orders() {
      return orders.get();
    }

    int payments() {
      return payments.get();
    }

    int refunds() {
      return refunds.get();
    }

    int cancels() {
      return cancels.get();
    }

    /** Holds every payment until {@code gate} opens, counting down {@code started} as it begins. */
    void holdPayments(@Nullable CountDownLatch started, @Nullable CountDownLatch gate) {
      payStarted = started;
      paying = gate;
    }

    @Tool(name = "place_order", description = "Places an order for an item")
    @Idempotent(waitFor = "10s")
    public Placed placeOrder(
        @ToolParam(description = "what to order") String item,
        @ToolParam(description = "how many") int quantity,
        @ToolParam(
                description =
                    "the same value on every retry of this order, a new one for a new order",
                required = false)
            @Nullable String idempotencyKey) {
      return new Placed("O-" + orders.incrementAndGet(), item, quantity);
    }

    @Tool(name = "pay", description = "Pays an order")
    @Idempotent(waitFor = "0")
    public String pay(
        @ToolParam(description = "the order") String orderNo,
        @ToolParam(description = "the amount in cents") long cents,
        ToolContext context)
        throws InterruptedException {
      CountDownLatch started = payStarted;
      if (started != null) {
        started.countDown();
      }
      CountDownLatch gate = paying;
      if (gate != null && !gate.await(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the test never opened the gate");
      }
      return "payment P-" + payments.incrementAndGet() + " of " + cents + " for " + orderNo;
    }

    @Tool(name = "refund", description = "Refunds an order")
    @Idempotent
    public String refund(
        @ToolParam(description = "the order") String orderNo,
        ToolContext context,
        @ToolParam(description = "the same value on every retry of this refund")
            String idempotencyKey) {
      return "refund R-" + refunds.incrementAndGet() + " for " + orderNo;
    }

    @McpTool(name = "cancel_order", description = "Cancels an order")
    @Idempotent
    public String cancelOrder(
        @McpToolParam(description = "the order", required = true) String orderNo,
        @McpToolParam(
                description = "the same value on every retry of this cancellation",
                required = false)
            @Nullable String idempotencyKey,
        McpMeta meta,
        @McpProgressToken @Nullable String progressToken) {
      return "cancellation C-" + cancels.incrementAndGet() + " of " + orderNo;
    }
  }
}
