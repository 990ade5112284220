package dev.idem.spring.ai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.IdempotencyException;
import dev.idem.core.InvalidKeyException;
import dev.idem.core.KeyReuseException;
import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.spring.Idempotent;
import dev.idem.spring.ai.internal.ToolCalls;
import dev.idem.spring.ai.internal.ToolCalls.ToolCall;
import dev.idem.spring.aop.IdempotentCallerResolver;
import dev.idem.spring.autoconfigure.IdemAopAutoConfiguration;
import dev.idem.spring.autoconfigure.IdemAutoConfiguration;
import dev.idem.spring.autoconfigure.IdemMcpAutoConfiguration;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.mcp.annotation.McpTool;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The rules of a tool method outside an MCP call (a chat model's call in the application), inside
 * another tool's call, and at start-up: the declared {@code idempotencyKey} is the key, the caller
 * must be known when the key is the call's, the {@code ToolContext} is no part of the fingerprint,
 * an application's caller resolver and the agent both scope the key, and what Idem cannot guard
 * stops the application.
 */
class ToolMethodRulesTest {

  private static final AtomicReference<String> TENANT = new AtomicReference<>("acme");

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  IdemAutoConfiguration.class,
                  IdemAopAutoConfiguration.class,
                  IdemMcpAutoConfiguration.class))
          .withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new)
          .withBean(ToolShop.Tools.class);

  private final ApplicationContextRunner withTenants =
      runner.withBean(IdempotentCallerResolver.class, () -> (method, arguments) -> TENANT.get());

  @Test
  void aLocalCallWhoseCallerNothingNamesIsRefused() {
    runner.run(
        context -> {
          ToolShop.Tools tools = context.getBean(ToolShop.Tools.class);

          assertThatThrownBy(() -> tools.refund("O-1", context("a"), "k-1"))
              .isInstanceOf(IdempotencyException.class)
              .hasMessageContaining("nothing tells this caller apart");
          assertThat(tools.refunds()).isZero();
        });
  }

  @Test
  void aLocalCallIsKeyedByItsDeclaredArgumentAndItsToolContextIsNotCompared() {
    withTenants.run(
        context -> {
          ToolShop.Tools tools = context.getBean(ToolShop.Tools.class);

          String first = tools.refund("O-1", context("a"), "k-1");
          String again = tools.refund("O-1", context("b"), "k-1");

          assertThat(again).isEqualTo(first);
          assertThat(tools.refunds()).isEqualTo(1);
          assertThatThrownBy(() -> tools.refund("O-2", context("a"), "k-1"))
              .isInstanceOf(KeyReuseException.class);
          assertThatThrownBy(() -> tools.placeOrder("tea", 1, null))
              .isInstanceOf(InvalidKeyException.class)
              .hasMessageContaining("needs an idempotency key");
          // pay takes its key from an MCP call's _meta, and a local call has none
          assertThatThrownBy(() -> tools.pay("O-1", 100, context("a")))
              .isInstanceOf(InvalidKeyException.class);
          assertThat(tools.payments()).isZero();
        });
  }

  @Test
  void theResolversCallerAndTheAgentBothScopeTheKey() {
    withTenants.run(
        context -> {
          ToolShop.Tools tools = context.getBean(ToolShop.Tools.class);

          String alice = asAgent("alice", () -> tools.refund("O-1", context("a"), "k"));
          String bob = asAgent("bob", () -> tools.refund("O-1", context("a"), "k"));
          TENANT.set("globex");
          String aliceElsewhere = asAgent("alice", () -> tools.refund("O-1", context("a"), "k"));
          String aliceAgain = asAgent("alice", () -> tools.refund("O-1", context("a"), "k"));
          TENANT.set("acme");

          assertThat(java.util.Set.of(alice, bob, aliceElsewhere)).hasSize(3);
          assertThat(aliceAgain).isEqualTo(aliceElsewhere);
          assertThat(tools.refunds()).isEqualTo(3);
        });
  }

  @Test
  void aToolCalledInsideAnotherToolsCallTakesNothingOfThatCall() {
    runner.run(
        context -> {
          ToolShop.Tools tools = context.getBean(ToolShop.Tools.class);
          ToolCall payCall = new ToolCall("pay", "alice", "s-1", Map.of("idempotencyKey", "k-9"));

          // the MCP call is pay's: place_order gets neither its _meta key nor its agent
          assertThatThrownBy(
                  () -> ToolCalls.within(payCall, () -> tools.placeOrder("tea", 1, null)))
              .isInstanceOf(InvalidKeyException.class);
          assertThatThrownBy(
                  () -> ToolCalls.within(payCall, () -> tools.placeOrder("tea", 1, "k-9")))
              .hasMessageContaining("nothing tells this caller apart");
          assertThat(tools.orders()).isZero();
        });
  }

  @Test
  void theKeyInTheCallsMetaWinsOverTheOneTheModelWrote() {
    runner.run(
        context -> {
          ToolShop.Tools tools = context.getBean(ToolShop.Tools.class);
          Map<String, Object> meta = Map.of("idempotencyKey", "stable");

          Object first =
              ToolCalls.within(
                  new ToolCall("place_order", "alice", "s-1", meta),
                  () -> tools.placeOrder("tea", 1, "written-by-the-model"));
          Object again =
              ToolCalls.within(
                  new ToolCall("place_order", "alice", "s-2", meta),
                  () -> tools.placeOrder("tea", 1, "written-again"));

          assertThat(again).isEqualTo(first);
          assertThat(tools.orders()).isEqualTo(1);
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

  @Test
  void aResumableToolStopsTheApplication() {
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(IdemAutoConfiguration.class, IdemAopAutoConfiguration.class))
        .withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new)
        .withBean(ResumableTool.class)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("a tool is not resumable"));
  }

  @Test
  void aToolTakingTheWholeRequestMustNameItsFingerprint() {
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(IdemAutoConfiguration.class, IdemAopAutoConfiguration.class))
        .withBean(IdempotencyStore.class, InMemoryIdempotencyStore::new)
        .withBean(WholeRequestTool.class)
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("fingerprint = \"#request.arguments()\""));
  }

  private static <T> T asAgent(String principal, java.util.function.Supplier<T> call) {
    return ToolCalls.within(new ToolCall("refund", principal, null, Map.of()), call);
  }

  private static ToolContext context(String trace) {
    return new ToolContext(Map.of("trace", trace));
  }

  /** A tool a completer would call without its agent's call. */
  public static class ResumableTool {
    @Tool(name = "ship", description = "Ships an order")
    @Idempotent(key = "#orderNo", resumable = true)
    public String ship(String orderNo) {
      return "shipped " + orderNo;
    }
  }

  /** A tool that takes the whole MCP request. */
  public static class WholeRequestTool {
    @McpTool(name = "echo", description = "Echoes")
    @Idempotent
    public String echo(CallToolRequest request, @Nullable String idempotencyKey) {
      return "echo " + request.arguments();
    }
  }
}
