package dev.idem.shop.agent;

import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Serves {@link ShopTools} on the MCP server. */
@Configuration
class AgentConfig {

  @Bean
  ToolCallbackProvider shopToolCallbacks(ShopTools tools) {
    return MethodToolCallbackProvider.builder().toolObjects(tools).build();
  }
}
