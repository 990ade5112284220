package dev.idem.spring.webflux;

import dev.idem.spring.web.internal.AnonymousCaller;
import java.security.Principal;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Names the caller a WebFlux request comes from, so that two callers sending the same key never
 * share a record. The default ({@link #principalOrAddress()}) uses the exchange's principal (which
 * Spring Security sets), and an unauthenticated caller's address: two anonymous clients never see
 * each other's answers. Define a bean to use a tenant, an API key or the like instead.
 */
@FunctionalInterface
public interface ReactiveScopeResolver {

  /**
   * The caller's identity; never empty, at most a few hundred characters, no control characters.
   */
  Mono<String> resolve(ServerWebExchange exchange);

  /**
   * The principal's name, or for an unauthenticated caller {@code anonymous@<client address>} (the
   * request's remote address, which forwarded headers set when the application trusts them).
   */
  static ReactiveScopeResolver principalOrAddress() {
    return exchange ->
        exchange
            .getPrincipal()
            .map(Principal::getName)
            .switchIfEmpty(
                Mono.fromSupplier(
                    () -> AnonymousCaller.at(exchange.getRequest().getRemoteAddress())));
  }

  /**
   * The principal's name, or {@code "anonymous"} for every unauthenticated caller: they share
   * answers and one cap, so only for a route whose answers are no secret and whose callers are few.
   */
  static ReactiveScopeResolver principal() {
    return exchange -> exchange.getPrincipal().map(Principal::getName).defaultIfEmpty("anonymous");
  }
}
