package dev.idem.spring.autoconfigure;

import dev.idem.spring.ai.internal.McpToolCallBinding;
import io.modelcontextprotocol.server.McpServerFeatures;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;

/**
 * {@link dev.idem.spring.Idempotent @Idempotent} on the tools a Spring AI MCP server serves: while
 * a tool runs, its advice knows the call's {@code _meta} (where a client may send its idempotency
 * key), its session and its principal, which name the calling agent.
 */
@AutoConfiguration(before = IdemAopAutoConfiguration.class)
@ConditionalOnClass(McpServerFeatures.class)
public class IdemMcpAutoConfiguration {

  /** Binds each tool call around the tool's handler. */
  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  static McpToolCallBinding idemMcpToolCallBinding() {
    return new McpToolCallBinding();
  }
}
