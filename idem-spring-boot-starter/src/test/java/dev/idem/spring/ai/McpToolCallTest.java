package dev.idem.spring.ai;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * {@code @Idempotent} tools called by a real MCP client (the MCP Java SDK over Streamable HTTP), as
 * an agent calls them: retried, sent twenty times at once, with a key reused for other arguments,
 * without a key, after losing the reply, and by callers who must not get each other's answers.
 */
@SpringBootTest(
    classes = ToolShop.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "spring.ai.mcp.server.enabled=true",
      "spring.ai.mcp.server.protocol=STREAMABLE",
      // the security auto-configuration the other tests' applications leave out
      "spring.autoconfigure.exclude="
    })
class McpToolCallTest {

  @LocalServerPort int port;
  @Autowired ToolShop.Tools tools;

  private final List<McpSyncClient> clients = new ArrayList<>();

  @AfterEach
  void close() {
    tools.holdPayments(null, null);
    clients.forEach(McpSyncClient::closeGracefully);
  }

  @Test
  void aRetriedToolCallRunsOnceAndGetsTheFirstAnswer() {
    McpSyncClient agent = client(null, Duration.ofSeconds(20));
    String key = UUID.randomUUID().toString();
    int before = tools.orders();

    String first = text(agent.callTool(order("tea", 2, key)));
    String again = text(agent.callTool(order("tea", 2, key)));

    assertThat(again).isEqualTo(first).contains("\"item\":\"tea\"");
    assertThat(tools.orders()).isEqualTo(before + 1);
  }

  @Test
  void twentyCopiesAtOnceMakeOneOrder() throws Exception {
    McpSyncClient agent = client(null, Duration.ofSeconds(30));
    String key = UUID.randomUUID().toString();
    int before = tools.orders();
    ExecutorService pool = Executors.newFixedThreadPool(20);
    try {
      List<Future<String>> answers = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        answers.add(pool.submit(() -> text(agent.callTool(order("cake", 1, key)))));
      }
      Set<String> distinct = new HashSet<>();
      for (Future<String> answer : answers) {
        distinct.add(answer.get());
      }
      assertThat(distinct).hasSize(1);
    } finally {
      pool.shutdownNow();
    }
    assertThat(tools.orders()).isEqualTo(before + 1);
  }

  @Test
  void aKeyReusedWithOtherArgumentsIsAToolErrorNamingTheReuse() {
    McpSyncClient agent = client(null, Duration.ofSeconds(20));
    String key = UUID.randomUUID().toString();
    agent.callTool(order("tea", 2, key));
    int before = tools.orders();

    CallToolResult reused = agent.callTool(order("tea", 2000, key));

    assertThat(reused.isError()).isTrue();
    assertThat(text(reused)).contains("already used with a different request");
    assertThat(tools.orders()).isEqualTo(before);
  }

  @Test
  void aCallWithoutKeyIsRefusedAndSaysHowToSendOne() {
    McpSyncClient agent = client(null, Duration.ofSeconds(20));
    int before = tools.orders();

    CallToolResult refused = agent.callTool(order("tea", 2, null));

    assertThat(refused.isError()).isTrue();
    assertThat(text(refused)).contains("needs an idempotency key", "idempotencyKey", "_meta");
    assertThat(tools.orders()).isEqualTo(before);
  }

  @Test
  void theKeyMayComeInTheCallsMeta() {
    McpSyncClient agent = client(null, Duration.ofSeconds(20));
    String key = UUID.randomUUID().toString();
    int before = tools.payments();

    String first = text(agent.callTool(pay("O-9", 500, key)));
    String again = text(agent.callTool(pay("O-9", 500, key)));

    assertThat(again).isEqualTo(first).contains("O-9");
    assertThat(tools.payments()).isEqualTo(before + 1);
  }

  @Test
  void anAgentThatLostTheReplyGetsItWhenItRetries() throws Exception {
    McpSyncClient agent = client(null, Duration.ofSeconds(30));
    String key = UUID.randomUUID().toString();
    int before = tools.payments();
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch gate = new CountDownLatch(1);
    tools.holdPayments(started, gate);
    ExecutorService first = Executors.newSingleThreadExecutor();
    try {
      // the agent sends the call and stops waiting for its reply: it does not know if it paid
      Future<CallToolResult> lost = first.submit(() -> agent.callTool(pay("O-7", 900, key)));
      assertThat(started.await(20, TimeUnit.SECONDS)).isTrue();
      CallToolResult busy = agent.callTool(pay("O-7", 900, key));
      assertThat(busy.isError()).isTrue();
      assertThat(text(busy)).contains("still in progress", "retry later");

      gate.countDown();
      String answer = retryUntilAnswered(agent, pay("O-7", 900, key));
      assertThat(answer).contains("O-7", "900");
      assertThat(text(lost.get(20, TimeUnit.SECONDS))).isEqualTo(answer);
    } finally {
      first.shutdownNow();
    }
    assertThat(tools.payments()).isEqualTo(before + 1);
  }

  @Test
  void theSameAgentOnTwoSessionsGetsOneEffect() {
    McpSyncClient first = client("alice", Duration.ofSeconds(20));
    McpSyncClient second = client("alice", Duration.ofSeconds(20));
    String key = UUID.randomUUID().toString();
    int before = tools.orders();

    String one = text(first.callTool(order("jam", 3, key)));
    String two = text(second.callTool(order("jam", 3, key)));

    assertThat(two).isEqualTo(one);
    assertThat(tools.orders()).isEqualTo(before + 1);
  }

  @Test
  void callersNeverGetEachOthersAnswers() {
    String key = UUID.randomUUID().toString();
    int before = tools.orders();

    String alice = text(client("alice", Duration.ofSeconds(20)).callTool(order("jam", 3, key)));
    String bob = text(client("bob", Duration.ofSeconds(20)).callTool(order("jam", 3, key)));
    String anonymous = text(client(null, Duration.ofSeconds(20)).callTool(order("jam", 3, key)));
    String otherAnonymous =
        text(client(null, Duration.ofSeconds(20)).callTool(order("jam", 3, key)));

    assertThat(Set.of(alice, bob, anonymous, otherAnonymous)).hasSize(4);
    assertThat(tools.orders()).isEqualTo(before + 4);
  }

  @Test
  void anMcpToolMethodIsGuardedTooWhateverItsProgressTokens() {
    McpSyncClient agent = client(null, Duration.ofSeconds(20));
    String key = UUID.randomUUID().toString();
    int before = tools.cancels();

    String first = text(agent.callTool(cancel("O-3", key, false)));
    String again = text(agent.callTool(cancel("O-3", key, true)));
    CallToolResult reused = agent.callTool(cancel("O-4", key, false));

    assertThat(again).isEqualTo(first);
    assertThat(reused.isError()).isTrue();
    assertThat(tools.cancels()).isEqualTo(before + 1);
  }

  // each retry with a progress token of its own, as clients send them
  private static CallToolRequest cancel(String orderNo, String key, boolean inMeta) {
    CallToolRequest.Builder call = CallToolRequest.builder("cancel_order");
    String progress = UUID.randomUUID().toString();
    if (inMeta) {
      return call.arguments(Map.of("orderNo", orderNo))
          .meta(Map.of("idempotencyKey", key, "progressToken", progress))
          .build();
    }
    return call.arguments(Map.of("orderNo", orderNo, "idempotencyKey", key))
        .meta(Map.of("progressToken", progress))
        .build();
  }

  private String retryUntilAnswered(McpSyncClient agent, CallToolRequest call)
      throws InterruptedException {
    for (int i = 0; i < 200; i++) {
      CallToolResult result = agent.callTool(call);
      if (!Boolean.TRUE.equals(result.isError())) {
        return text(result);
      }
      assertThat(text(result)).contains("still in progress");
      // the first call ends on the server's own time: wait for it, as an agent told to retry
      Thread.sleep(50);
    }
    throw new AssertionError("the first call never ended");
  }

  private static CallToolRequest order(String item, int quantity, @Nullable String key) {
    Map<String, Object> arguments = new java.util.HashMap<>();
    arguments.put("item", item);
    arguments.put("quantity", quantity);
    if (key != null) {
      arguments.put("idempotencyKey", key);
    }
    return CallToolRequest.builder("place_order").arguments(arguments).build();
  }

  private static CallToolRequest pay(String orderNo, long cents, String key) {
    return CallToolRequest.builder("pay")
        .arguments(Map.of("orderNo", orderNo, "cents", cents))
        .meta(Map.of("idempotencyKey", key))
        .build();
  }

  private static String text(CallToolResult result) {
    return McpClients.text(result);
  }

  private McpSyncClient client(@Nullable String user, Duration timeout) {
    McpSyncClient client = McpClients.connect(port, user, timeout);
    clients.add(client);
    return client;
  }
}
