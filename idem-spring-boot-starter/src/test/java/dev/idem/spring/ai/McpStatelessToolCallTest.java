package dev.idem.spring.ai;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * Tools on an MCP server without sessions: an authenticated agent's retries run once, and an
 * anonymous call, whose caller nothing tells apart from any other, is refused rather than answered
 * with another agent's result.
 */
@SpringBootTest(
    classes = ToolShop.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "spring.ai.mcp.server.enabled=true",
      "spring.ai.mcp.server.protocol=STATELESS",
      "spring.autoconfigure.exclude="
    })
class McpStatelessToolCallTest {

  @LocalServerPort int port;
  @Autowired ToolShop.Tools tools;

  @Test
  void anAuthenticatedAgentsRetryRunsOnce() {
    McpSyncClient alice = client("alice");
    String key = UUID.randomUUID().toString();
    int before = tools.orders();

    String first = text(alice.callTool(order(key)));
    String again = text(client("alice").callTool(order(key)));

    assertThat(again).isEqualTo(first);
    assertThat(tools.orders()).isEqualTo(before + 1);
    alice.closeGracefully();
  }

  @Test
  void anAnonymousCallIsRefusedNotAnsweredWithAnotherAgentsResult() {
    String key = UUID.randomUUID().toString();
    text(client("alice").callTool(order(key)));
    int before = tools.orders();

    CallToolResult anonymous = client(null).callTool(order(key));

    assertThat(anonymous.isError()).isTrue();
    assertThat(text(anonymous)).contains("neither a principal nor an MCP session");
    assertThat(tools.orders()).isEqualTo(before);
  }

  private static CallToolRequest order(String key) {
    return CallToolRequest.builder("place_order")
        .arguments(Map.of("item", "tea", "quantity", 1, "idempotencyKey", key))
        .build();
  }

  private static String text(CallToolResult result) {
    return McpClients.text(result);
  }

  private McpSyncClient client(@Nullable String user) {
    return McpClients.connect(port, user, Duration.ofSeconds(20));
  }
}
