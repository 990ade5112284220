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

  private static final String TOOL = "org.springframework.ai.tool.annotation.Tool";
  private static final String CONTEXT = "org.springframework.ai.chat.model.ToolContext";
  private static final String META_KEY = "T(dev.idem.spring.ai.internal.ToolCalls).metaKey()";

  private ToolMethods() {}

  /** Whether {@code method} is a Spring AI tool. */
  static boolean isTool(Method method) {
    ClassLoader loader = method.getDeclaringClass().getClassLoader();
    if (!ClassUtils.isPresent(TOOL, loader)) {
      return false;
    }
    Class<? extends Annotation> tool =
        ClassUtils.resolveClassName(TOOL, loader).asSubclass(Annotation.class);
    return AnnotatedElementUtils.hasAnnotation(method, tool);
  }

  /**
   * The key expression of a tool method that names none: its {@code idempotencyKey} argument when
   * it declares one, else (or when that argument is null) the key of the call's {@code _meta}.
   */
  static String keyExpression(Method method, List<String> parameterNames) {
    return parameterNames.contains("idempotencyKey") ? "#idempotencyKey ?: " + META_KEY : META_KEY;
  }

  /** The parameter names of {@code method} whose arguments a fingerprint compares. */
  static List<String> compared(Method method, List<String> parameterNames) {
    Parameter[] parameters = method.getParameters();
    List<String> compared = new ArrayList<>();
    for (int i = 0; i < parameters.length; i++) {
      if (!parameters[i].getType().getName().equals(CONTEXT)) {
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
