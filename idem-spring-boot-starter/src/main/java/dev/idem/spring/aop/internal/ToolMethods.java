package dev.idem.spring.aop.internal;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;

/**
 * Spring AI's {@code @Tool} methods, which agents call: without a key expression their key is the
 * {@code idempotencyKey} the call sends (as a declared argument, else in its MCP {@code _meta}),
 * its scope the calling agent, and a {@code ToolContext} parameter is no part of what the call
 * looked like. Read by name, so that the starter needs no Spring AI on the class path.
 */
final class ToolMethods {

  private static final List<String> TOOLS =
      List.of(
          "org.springframework.ai.tool.annotation.Tool",
          "org.springframework.ai.mcp.annotation.McpTool");
  // what Spring AI hands a tool besides its arguments: the call's context, never part of a request
  private static final List<String> CONTEXT_PREFIXES =
      List.of(
          "org.springframework.ai.chat.model.ToolContext",
          "org.springframework.ai.mcp.annotation.McpMeta",
          "org.springframework.ai.mcp.annotation.context.",
          "io.modelcontextprotocol.");
  private static final String KEY = "idempotencyKey";
  private static final String META_KEY = "T(dev.idem.spring.ai.internal.ToolCalls).metaKey()";

  private ToolMethods() {}

  /** Whether {@code method} is a Spring AI tool ({@code @Tool}, or {@code @McpTool}). */
  static boolean isTool(Method method) {
    ClassLoader loader = method.getDeclaringClass().getClassLoader();
    for (String name : TOOLS) {
      if (ClassUtils.isPresent(name, loader)
          && AnnotatedElementUtils.hasAnnotation(
              method, ClassUtils.resolveClassName(name, loader).asSubclass(Annotation.class))) {
        return true;
      }
    }
    return false;
  }

  /**
   * The key expression of a tool method that names none: its {@code idempotencyKey} argument when
   * it declares one, else (or when that argument is null) the key of the call's {@code _meta}.
   */
  static String keyExpression(Method method, List<String> parameterNames) {
    return parameterNames.contains(KEY) ? "#idempotencyKey ?: " + META_KEY : META_KEY;
  }

  /**
   * The parameter names of {@code method} whose arguments a fingerprint compares: all but the key
   * and what Spring AI hands a tool besides its arguments.
   */
  static List<String> compared(Method method, List<String> parameterNames) {
    Parameter[] parameters = method.getParameters();
    List<String> compared = new ArrayList<>();
    for (int i = 0; i < parameters.length; i++) {
      String type = parameters[i].getType().getName();
      // the key is no part of the request: a retry may send it in _meta instead
      if (!parameterNames.get(i).equals(KEY)
          && CONTEXT_PREFIXES.stream().noneMatch(type::startsWith)) {
        compared.add(parameterNames.get(i));
      }
    }
    return List.copyOf(compared);
  }

  /**
   * Refuses a tool on Spring AI's reactive MCP server ({@code spring.ai.mcp.server.type=ASYNC}),
   * whose calls Idem cannot follow to tell their callers and {@code _meta} apart.
   *
   * @throws IllegalStateException naming the tool and the fix
   */
  static void requireSyncServer(String operation, UnaryOperator<String> placeholders) {
    String type = placeholders.apply("${spring.ai.mcp.server.type:SYNC}");
    if ("ASYNC".equalsIgnoreCase(type.trim())) {
      throw new IllegalStateException(
          "@Idempotent on the tool "
              + operation
              + ": Idem guards tool calls of a synchronous MCP server only, where it can tell who"
              + " called and read the call's _meta; set spring.ai.mcp.server.type=SYNC");
    }
  }
}
