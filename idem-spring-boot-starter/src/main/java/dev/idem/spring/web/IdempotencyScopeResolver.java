package dev.idem.spring.web;

import jakarta.servlet.http.HttpServletRequest;

/**
 * Names the caller a request comes from, so that two callers sending the same key never share a
 * record. The default uses {@link HttpServletRequest#getUserPrincipal()} and puts every
 * unauthenticated caller in one scope, {@code "anonymous"}; define a bean to use a tenant, an API
 * key or the like instead.
 */
@FunctionalInterface
public interface IdempotencyScopeResolver {

  /** The caller's identity; never null, at most a few hundred characters, no control characters. */
  String resolve(HttpServletRequest request);

  /** The principal's name, or {@code "anonymous"}. */
  static IdempotencyScopeResolver principal() {
    return request ->
        request.getUserPrincipal() == null ? "anonymous" : request.getUserPrincipal().getName();
  }
}
