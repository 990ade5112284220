package dev.idem.spring.ai.internal;

import dev.idem.spring.ai.internal.ToolCalls.ToolCall;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema.CallToolRequest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Wraps every synchronous tool specification bean of an MCP server (those Spring AI makes of its
 * {@code @Tool} and {@code @McpTool} methods, and any the application declares as beans) so that,
 * while the tool runs, {@link ToolCalls} knows the call: which tool it calls, its {@code _meta},
 * its session and its principal. The principal is the servlet request's, when the tool runs on the
 * request's thread (Spring AI's servlet servers do); else the session alone names the caller. A
 * tool added otherwise (through a server customizer, or to a running server) runs with no call
 * bound: it has no {@code _meta} key, and a tool that takes its key from the call is refused unless
 * something else names its caller.
 */
public final class McpToolCallBinding implements BeanPostProcessor {

  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    if (isTool(bean)) {
      return bindAny(bean);
    }
    if (bean instanceof List<?> list && !list.isEmpty() && isTool(list.get(0))) {
      List<Object> bound = new ArrayList<>(list.size());
      for (Object element : list) {
        bound.add(bindAny(element));
      }
      return bound;
    }
    return bean;
  }

  private static boolean isTool(@Nullable Object element) {
    return element instanceof McpServerFeatures.SyncToolSpecification
        || element instanceof McpStatelessServerFeatures.SyncToolSpecification;
  }

  private static Object bindAny(Object element) {
    if (element instanceof McpServerFeatures.SyncToolSpecification tool) {
      return bind(tool);
    }
    if (element instanceof McpStatelessServerFeatures.SyncToolSpecification tool) {
      return bind(tool);
    }
    return element;
  }

  static McpServerFeatures.SyncToolSpecification bind(
      McpServerFeatures.SyncToolSpecification tool) {
    var handler = tool.callHandler();
    return new McpServerFeatures.SyncToolSpecification(
        tool.tool(),
        (exchange, request) ->
            ToolCalls.within(
                call(exchange.sessionId(), request), () -> handler.apply(exchange, request)));
  }

  static McpStatelessServerFeatures.SyncToolSpecification bind(
      McpStatelessServerFeatures.SyncToolSpecification tool) {
    var handler = tool.callHandler();
    return new McpStatelessServerFeatures.SyncToolSpecification(
        tool.tool(),
        (context, request) ->
            ToolCalls.within(call(null, request), () -> handler.apply(context, request)));
  }

  private static ToolCall call(@Nullable String session, CallToolRequest request) {
    Map<String, Object> meta = request.meta();
    return new ToolCall(
        request.name(),
        ToolCalls.requestPrincipal(),
        session,
        meta == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(meta)));
  }
}
