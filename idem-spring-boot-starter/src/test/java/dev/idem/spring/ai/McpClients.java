package dev.idem.spring.ai;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import io.modelcontextprotocol.spec.McpSchema.TextContent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import org.jspecify.annotations.Nullable;

/** Agents of the tool-call tests: the MCP Java SDK's client over Streamable HTTP. */
final class McpClients {

  private McpClients() {}

  /** An initialized client of the server at {@code port}, as {@code user} or anonymous. */
  static McpSyncClient connect(int port, @Nullable String user, Duration timeout) {
    HttpClientStreamableHttpTransport.Builder transport =
        HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + port).endpoint("/mcp");
    if (user != null) {
      String basic =
          Base64.getEncoder()
              .encodeToString((user + ":" + user + "-secret").getBytes(StandardCharsets.UTF_8));
      transport.httpRequestCustomizer(
          (request, method, uri, body, context) ->
              request.header("Authorization", "Basic " + basic));
    }
    McpSyncClient client = McpClient.sync(transport.build()).requestTimeout(timeout).build();
    client.initialize();
    return client;
  }

  /** The text a tool answered. */
  static String text(CallToolResult result) {
    return ((TextContent) result.content().get(0)).text();
  }
}
