package dev.idem.spring.aop.internal;

import dev.idem.spring.Idempotent;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationAttributes;
import org.springframework.util.ClassUtils;

/**
 * Spring AI's tool methods ({@code @Tool}, and {@code @McpTool} of its MCP annotations), which
 * agents call: without a key expression their key is the {@code idempotencyKey} the call sends (in
 * its MCP {@code _meta}, else as a declared argument), their caller the calling agent, and what
 * Spring AI hands a tool besides its arguments ({@code ToolContext}, {@code McpMeta}, a request
 * context or exchange, a progress token) is no part of what the call looked like. Read by name, so
 * that the starter needs no Spring AI on the class path.
 */
final class ToolMethods {

  private static final List<String> TOOLS =
      List.of(
          "org.springframework.ai.tool.annotation.Tool",
          "org.springframework.ai.mcp.annotation.McpTool");
  private static final String KEY = "idempotencyKey";
  // what Spring AI hands a tool besides its arguments: the call's context, never part of a request
  private static final List<String> CONTEXT_PREFIXES =
      List.of(
          "org.springframework.ai.chat.model.ToolContext",
          "org.springframework.ai.mcp.annotation.McpMeta",
          "org.springframework.ai.mcp.annotation.context.",
          "io.modelcontextprotocol.server.",
          "io.modelcontextprotocol.common.McpTransportContext");
  private static final String PROGRESS_TOKEN =
      "org.springframework.ai.mcp.annotation.McpProgressToken";
  private static final String WHOLE_REQUEST =
      "io.modelcontextprotocol.spec.McpSchema$CallToolRequest";

  private ToolMethods() {}

  /** The tool {@code method} serves, or null when it is no Spring AI tool. */
  static @Nullable String toolName(Method method) {
    ClassLoader loader = method.getDeclaringClass().getClassLoader();
    for (String name : TOOLS) {
      if (!ClassUtils.isPresent(name, loader)) {
        continue;
      }
      Class<? extends Annotation> type =
          ClassUtils.resolveClassName(name, loader).asSubclass(Annotation.class);
      AnnotationAttributes attributes =
          AnnotatedElementUtils.getMergedAnnotationAttributes(method, type);
      if (attributes != null) {
        Object named = attributes.get("name");
        return named instanceof String text && !text.isBlank() ? text : method.getName();
      }
    }
    return null;
  }

  /**
   * The key expression of the tool {@code tool} that names none: the key of its MCP call's {@code
   * _meta}, which a client keeps the same on every retry whatever the model writes, else its {@code
   * idempotencyKey} argument when it declares one.
   */
  static String keyExpression(String tool, List<String> parameterNames) {
    String meta =
        "T(dev.idem.spring.ai.internal.ToolCalls).metaKey('" + tool.replace("'", "''") + "')";
    return parameterNames.contains(KEY) ? meta + " ?: #" + KEY : meta;
  }

  /**
   * The parameter names of {@code method} whose arguments a fingerprint compares: all but the key
   * and what Spring AI hands a tool besides its arguments.
   */
  static List<String> compared(Method method, List<String> parameterNames) {
    Parameter[] parameters = method.getParameters();
    List<String> compared = new ArrayList<>();
    for (int i = 0; i < parameters.length; i++) {
      // the key is no part of the request: a retry may send it in _meta instead
      if (!parameterNames.get(i).equals(KEY) && !isContext(parameters[i])) {
        compared.add(parameterNames.get(i));
      }
    }
    return List.copyOf(compared);
  }

  private static boolean isContext(Parameter parameter) {
    String type = parameter.getType().getName();
    if (CONTEXT_PREFIXES.stream().anyMatch(type::startsWith)) {
      return true;
    }
    for (Annotation annotation : parameter.getAnnotations()) {
      if (annotation.annotationType().getName().equals(PROGRESS_TOKEN)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Refuses, at start-up, what Idem cannot guard on a tool: a reactive MCP server ({@code
   * spring.ai.mcp.server.type=ASYNC}), whose calls it cannot follow to tell their callers and
   * {@code _meta} apart; a resumable tool, which a completer would call again without its agent's
   * call; and a tool that takes the whole MCP request while its arguments are compared, since the
   * request holds what changes on every retry (its progress token, its key).
   *
   * @throws IllegalStateException naming the tool and the fix
   */
  static void check(
      String operation, Method method, Idempotent idempotent, UnaryOperator<String> placeholders) {
    String type = placeholders.apply("${spring.ai.mcp.server.type:SYNC}");
    if ("ASYNC".equalsIgnoreCase(type.trim())) {
      throw refused(
          operation,
          "Idem guards tool calls of a synchronous MCP server only, where it can tell who called"
              + " and read the call's _meta; set spring.ai.mcp.server.type=SYNC");
    }
    if (idempotent.resumable()) {
      throw refused(
          operation,
          "a completer would call it again without the agent's call (its caller, its _meta, its"
              + " context); a tool is not resumable: let it call a resumable bean method");
    }
    if (idempotent.compareArguments() && idempotent.fingerprint().isBlank()) {
      for (Parameter parameter : method.getParameters()) {
        if (parameter.getType().getName().equals(WHOLE_REQUEST)) {
          throw refused(
              operation,
              "it takes the whole CallToolRequest, whose _meta changes on every retry; name what"
                  + " identifies the call, such as fingerprint = \"#"
                  + parameter.getName()
                  + ".arguments()\"");
        }
      }
    }
  }

  private static IllegalStateException refused(String operation, String why) {
    return new IllegalStateException("@Idempotent on the tool " + operation + ": " + why);
  }
}
