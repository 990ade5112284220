package dev.idem.spring.ai.internal;

import dev.idem.core.IdempotencyException;
import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * The MCP tool call the current thread serves, for the advice of an {@link
 * dev.idem.spring.Idempotent @Idempotent} tool method: the key a client sent in the call's {@code
 * _meta}, and who the caller is. Bound around the tool's handler by {@link McpToolCallBinding}, for
 * that tool alone; nothing is bound for a tool a chat model calls in the application itself.
 */
public final class ToolCalls {

  /** The {@code _meta} entry, and the tool argument, that carry a call's idempotency key. */
  public static final String KEY = "idempotencyKey";

  private static final ThreadLocal<@Nullable ToolCall> CURRENT = new ThreadLocal<>();

  private static final boolean SERVLET =
      ClassUtils.isPresent(
          "jakarta.servlet.http.HttpServletRequest", ToolCalls.class.getClassLoader());

  private ToolCalls() {}

  /**
   * One tool call as the server received it.
   *
   * @param tool the name of the tool it calls
   * @param principal the authenticated caller's name, or null
   * @param session the MCP session it came in, or null on a server without sessions
   * @param meta the call's {@code _meta}, empty when it sent none
   */
  public record ToolCall(
      String tool,
      @Nullable String principal,
      @Nullable String session,
      Map<String, Object> meta) {}

  /** Runs {@code handler} with {@code call} bound to this thread. */
  public static <T> T within(ToolCall call, Supplier<T> handler) {
    ToolCall outer = CURRENT.get();
    CURRENT.set(call);
    try {
      return handler.get();
    } finally {
      if (outer == null) {
        CURRENT.remove();
      } else {
        CURRENT.set(outer);
      }
    }
  }

  /**
   * The key the current MCP call of {@code tool} sent in its {@code _meta}, or null when it sent
   * none or this thread serves no call of that tool (a tool that another tool calls in turn is not
   * the call). Read by the key expression of a tool method that names none.
   */
  public static @Nullable String metaKey(String tool) {
    ToolCall call = call(tool);
    Object key = call == null ? null : call.meta().get(KEY);
    return key == null ? null : key.toString();
  }

  /**
   * The caller of a call of {@code tool}: its agent (the principal, else {@code
   * anonymous@mcp-session:<id>}; outside an MCP call, the principal of the HTTP request this thread
   * serves), preceded by what the application's resolver said ({@code resolved}, such as a tenant),
   * so that neither can merge two callers the other tells apart.
   *
   * @param keyFromCall whether the tool's key is the one the call sends, which names nothing by
   *     itself, so that a call whose caller is unknown must be refused
   * @return the caller, or null when none is known and the key is the application's
   * @throws IdempotencyException for a call whose key it sent but whose caller nothing tells apart:
   *     one agent would get another's answer
   */
  public static @Nullable String caller(
      String tool, boolean keyFromCall, @Nullable String resolved) {
    ToolCall call = call(tool);
    String agent;
    if (call != null) {
      agent =
          call.principal() != null
              ? call.principal()
              : call.session() != null ? "anonymous@mcp-session:" + call.session() : null;
      if (agent == null) {
        throw new IdempotencyException(
            "this call of the tool "
                + tool
                + " has neither a principal nor an MCP session, so its caller cannot be told"
                + " apart from others and one agent could get another's answer: authenticate the"
                + " MCP clients, or serve tools with sessions"
                + " (spring.ai.mcp.server.protocol=STREAMABLE)");
      }
    } else {
      agent = requestPrincipal();
    }
    if (agent == null) {
      if (resolved == null && keyFromCall) {
        throw new IdempotencyException(
            "the tool "
                + tool
                + " takes its key from the call, and nothing tells this caller apart from"
                + " others (no MCP call, no principal, no IdempotentCallerResolver), so one"
                + " caller could get another's answer: declare an IdempotentCallerResolver bean,"
                + " or name a key expression that names the effect itself");
      }
      return resolved;
    }
    return resolved == null ? agent : resolved + "/" + agent;
  }

  private static @Nullable ToolCall call(String tool) {
    ToolCall call = CURRENT.get();
    return call != null && call.tool().equals(tool) ? call : null;
  }

  /** The principal of the servlet request this thread serves, or null. */
  static @Nullable String requestPrincipal() {
    if (!SERVLET) {
      return null;
    }
    RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
    if (!(attributes instanceof ServletRequestAttributes servlet)) {
      return null;
    }
    HttpServletRequest request = servlet.getRequest();
    Principal principal = request.getUserPrincipal();
    return principal == null ? null : principal.getName();
  }
}
