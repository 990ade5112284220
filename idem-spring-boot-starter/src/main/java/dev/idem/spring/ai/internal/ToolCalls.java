package dev.idem.spring.ai.internal;

import dev.idem.core.IdempotencyException;
import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The MCP tool call the current thread serves, for the advice of an {@link
 * dev.idem.spring.Idempotent @Idempotent} tool method: the key a client sent in the call's {@code
 * _meta}, and who the caller is. Bound around the tool's handler by {@link McpToolCallBinding};
 * nothing is bound for a tool a chat model calls in the application itself.
 */
public final class ToolCalls {

  /** The {@code _meta} entry, and the tool argument, that carry a call's idempotency key. */
  public static final String KEY = "idempotencyKey";

  private static final ThreadLocal<@Nullable ToolCall> CURRENT = new ThreadLocal<>();

  private ToolCalls() {}

  /**
   * One tool call as the server received it.
   *
   * @param principal the authenticated caller's name, or null
   * @param session the MCP session it came in, or null on a server without sessions
   * @param meta the call's {@code _meta}, empty when it sent none
   */
  public record ToolCall(
      @Nullable String principal, @Nullable String session, Map<String, Object> meta) {}

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
   * The key the current call sent in its {@code _meta}, or null when it sent none or no MCP call is
   * bound. Read by the key expression of a tool method that names none.
   */
  public static @Nullable String metaKey() {
    ToolCall call = CURRENT.get();
    Object key = call == null ? null : call.meta().get(KEY);
    return key == null ? null : key.toString();
  }

  /**
   * The caller of the current MCP call: its principal, else {@code anonymous@mcp-session:<id>};
   * null when no MCP call is bound (a chat model's call in the application, whose caller is the
   * application itself).
   *
   * @throws IdempotencyException for an anonymous call on a server without sessions, whose callers
   *     cannot be told apart: one agent would get another's answer
   */
  public static @Nullable String caller() {
    ToolCall call = CURRENT.get();
    if (call == null) {
      return null;
    }
    if (call.principal() != null) {
      return call.principal();
    }
    if (call.session() != null) {
      return "anonymous@mcp-session:" + call.session();
    }
    throw new IdempotencyException(
        "this tool call has neither a principal nor an MCP session, so its caller cannot be told"
            + " apart from others and one agent could get another's answer: authenticate the MCP"
            + " clients, or serve tools with sessions (spring.ai.mcp.server.protocol=STREAMABLE)");
  }
}
