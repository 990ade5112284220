package dev.idem.spring.ai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.InvalidKeyException;
import dev.idem.core.KeyReuseException;
import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.spring.autoconfigure.IdemAopAutoConfiguration;
import dev.idem.spring.autoconfigure.IdemAutoConfiguration;
import dev.idem.spring.autoconfigure.IdemMcpAutoConfiguration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The rules of a tool method outside an MCP call (a chat model's call in the application) and at
 * start-up: the declared {@code idempotencyKey} is the key, the {@code ToolContext} is no part of
 * the fingerprint, and a reactive MCP server, whose calls Idem cannot follow, stops the
 * application.
 */
class ToolMethodRulesTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  IdemAutoConfiguration.class,
                  IdemAopAutoConfiguration.class,
                  IdemMcpAutoConfiguration.class))
          .withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new)
          .withBean(ToolShop.Tools.class);

  @Test
  void aLocalCallIsKeyedByItsDeclaredArgumentAndItsToolContextIsNotCompared() {
    runner.run(
        context -> {
          ToolShop.Tools tools = context.getBean(ToolShop.Tools.class);

          String first = tools.refund("O-1", new ToolContext(Map.of("trace", "a")), "k-1");
          String again = tools.refund("O-1", new ToolContext(Map.of("trace", "b")), "k-1");

          assertThat(again).isEqualTo(first);
          assertThat(tools.refunds()).isEqualTo(1);
          assertThatThrownBy(
                  () -> tools.refund("O-2", new ToolContext(Map.of("trace", "a")), "k-1"))
              .isInstanceOf(KeyReuseException.class);
          assertThat(tools.placeOrder("tea", 1, "k-2"))
              .isEqualTo(tools.placeOrder("tea", 1, "k-2"));
          assertThat(tools.orders()).isEqualTo(1);
        });
  }

  @Test
  void aLocalCallWithoutKeyIsRefused() {
    runner.run(
        context -> {
          ToolShop.Tools tools = context.getBean(ToolShop.Tools.class);

          assertThatThrownBy(() -> tools.placeOrder("tea", 1, null))
              .isInstanceOf(InvalidKeyException.class)
              .hasMessageContaining("needs an idempotency key");
          // pay takes its key from an MCP call's _meta, and a local call has none
          assertThatThrownBy(() -> tools.pay("O-1", 100, new ToolContext(Map.of("trace", "a"))))
              .isInstanceOf(InvalidKeyException.class);
          assertThat(tools.orders()).isZero();
          assertThat(tools.payments()).isZero();
        });
  }

  @Test
  void aToolOnTheReactiveMcpServerStopsTheApplication() {
    runner
        .withPropertyValues("spring.ai.mcp.server.type=ASYNC")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("spring.ai.mcp.server.type=SYNC"));
  }
}
