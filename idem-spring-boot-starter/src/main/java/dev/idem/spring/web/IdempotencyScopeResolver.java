package dev.idem.spring.web;

import dev.idem.spring.web.internal.AnonymousCaller;
import jakarta.servlet.http.HttpServletRequest;

/**
 * Names the caller a request comes from, so that two callers sending the same key never share a
 * record. The default ({@link #principalOrAddress()}) uses {@link
 * HttpServletRequest#getUserPrincipal()}, and an unauthenticated caller's address: two anonymous
 * clients never see each other's answers. Define a bean to use a tenant, an API key or the like
 * instead.
 */
@FunctionalInterface
public interface IdempotencyScopeResolver {

  /** The caller's identity; never null, at most a few hundred characters, no control characters. */
  String resolve(HttpServletRequest request);

  /**
   * The principal's name, or for an unauthenticated caller {@code anonymous@<client address>}
   * ({@link HttpServletRequest#getRemoteAddr()}, which a reverse proxy's forwarded headers set when
   * the application trusts them).
   */
  static IdempotencyScopeResolver principalOrAddress() {
    return request ->
        request.getUserPrincipal() == null
            ? AnonymousCaller.at(request.getRemoteAddr())
            : request.getUserPrincipal().getName();
  }

  /**
   * The principal's name, or {@code "anonymous"} for every unauthenticated caller: they share
   * answers and one cap, so only for a route whose answers are no secret and whose callers are few.
   */
  static IdempotencyScopeResolver principal() {
    return request ->
        request.getUserPrincipal() == null ? "anonymous" : request.getUserPrincipal().getName();
  }
}
