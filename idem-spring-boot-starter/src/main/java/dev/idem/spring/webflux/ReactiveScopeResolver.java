package dev.idem.spring.webflux;

import java.security.Principal;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Names the caller a WebFlux request comes from, so that two callers sending the same key never
 * share a record. The default uses the exchange's principal (which Spring Security sets) and puts
 * every unauthenticated caller in one scope, {@code "anonymous"}; define a bean to use a tenant, an
 * API key or the like instead.
 */
@FunctionalInterface
public interface ReactiveScopeResolver {

  /**
   * The caller's identity; never empty, at most a few hundred characters, no control characters.
   */
  Mono<String> resolve(ServerWebExchange exchange);

  /** The principal's name, or {@code "anonymous"}. */
  static ReactiveScopeResolver principal() {
    return exchange -> exchange.getPrincipal().map(Principal::getName).defaultIfEmpty("anonymous");
  }
}
