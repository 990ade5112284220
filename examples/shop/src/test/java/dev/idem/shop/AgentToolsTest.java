package dev.idem.shop;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * An AI agent orders and pays through the shop's MCP tools with a real MCP client, retrying as
 * agents do: each retry gets the first answer, one order is placed and one charge made; another
 * shopper's call with the same key is that shopper's own; a key reused for another order is a tool
 * error; arguments the HTTP API would refuse are refused here too.
 */
class AgentToolsTest extends EndToEnd {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final List<McpSyncClient> clients = new ArrayList<>();

  @AfterEach
  void closeClients() {
    clients.forEach(McpSyncClient::closeGracefully);
  }

  @Test
  void anAgentsRetriedOrderAndPaymentHappenOnce() {
    McpSyncClient agent = agent("alice");
    String orderKey = key();
    long ordersBefore = count("SELECT COUNT(*) FROM orders");

    JsonNode order = answer(agent.callTool(placeOrder("STICKER", 2, orderKey)));
    JsonNode retried = answer(agent(("alice")).callTool(placeOrder("STICKER", 2, orderKey)));
    String orderNo = order.path("orderNo").asString();

    assertThat(retried).isEqualTo(order);
    assertThat(count("SELECT COUNT(*) FROM orders")).isEqualTo(ordersBefore + 1);

    String payKey = key();
    JsonNode paid = answer(agent.callTool(pay(orderNo, payKey)));
    JsonNode repaid = answer(agent.callTool(pay(orderNo, payKey)));

    assertThat(paid.path("status").asString()).isEqualTo("SUCCESS");
    assertThat(repaid).isEqualTo(paid);
    assertThat(count("SELECT COUNT(*) FROM wallet_ledger WHERE order_no = ?", orderNo))
        .isEqualTo(1);
  }

  @Test
  void anotherShoppersCallWithTheSameKeyIsTheirOwn() {
    String shared = key();

    JsonNode alices = answer(agent("alice").callTool(placeOrder("STICKER", 1, shared)));
    JsonNode bobs = answer(agent("bob").callTool(placeOrder("STICKER", 1, shared)));

    assertThat(bobs.path("orderNo").asString()).isNotEqualTo(alices.path("orderNo").asString());
    assertThat(
            count(
                "SELECT COUNT(*) FROM orders WHERE order_no IN (?, ?) AND username = 'bob'",
                alices.path("orderNo").asString(),
                bobs.path("orderNo").asString()))
        .isEqualTo(1);
  }

  @Test
  void aKeyReusedForAnotherOrderAndArgumentsTheApiRefusesAreToolErrors() {
    McpSyncClient agent = agent("alice");
    String reused = key();
    answer(agent.callTool(placeOrder("STICKER", 1, reused)));
    long ordersBefore = count("SELECT COUNT(*) FROM orders");
    long stockBefore = count("SELECT stock FROM products WHERE sku = 'STICKER'");

    CallToolResult other = agent.callTool(placeOrder("STICKER", 5, reused));
    CallToolResult negative = agent.callTool(placeOrder("STICKER", -5, key()));

    assertThat(other.isError()).isTrue();
    assertThat(text(other)).contains("already used with a different request");
    assertThat(negative.isError()).isTrue();
    assertThat(text(negative)).contains("quantity");
    assertThat(count("SELECT COUNT(*) FROM orders")).isEqualTo(ordersBefore);
    assertThat(count("SELECT stock FROM products WHERE sku = 'STICKER'")).isEqualTo(stockBefore);
  }

  private static CallToolRequest placeOrder(String sku, int quantity, String key) {
    return CallToolRequest.builder("place_order")
        .arguments(Map.of("sku", sku, "quantity", quantity, "idempotencyKey", key))
        .build();
  }

  private static CallToolRequest pay(String orderNo, String key) {
    return CallToolRequest.builder("pay")
        .arguments(Map.of("orderNo", orderNo, "method", "WALLET", "idempotencyKey", key))
        .build();
  }

  private static JsonNode answer(CallToolResult result) {
    assertThat(result.isError()).as(text(result)).isFalse();
    return JSON.readTree(text(result));
  }

  private static String text(CallToolResult result) {
    return ((TextContent) result.content().get(0)).text();
  }

  private McpSyncClient agent(String user) {
    String basic =
        Base64.getEncoder().encodeToString((user + ":" + user).getBytes(StandardCharsets.UTF_8));
    McpSyncClient client =
        McpClient.sync(
                HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port)
                    .endpoint("/mcp")
                    .httpRequestCustomizer(
                        (request, method, uri, body, context) ->
                            request.header("Authorization", "Basic " + basic))
                    .build())
            .requestTimeout(Duration.ofSeconds(30))
            .build();
    client.initialize();
    clients.add(client);
    return client;
  }
}
