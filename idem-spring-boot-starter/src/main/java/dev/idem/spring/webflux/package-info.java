/**
 * The {@code Idempotency-Key} semantics for Spring WebFlux: {@link
 * dev.idem.spring.webflux.IdempotencyWebFilter}, the caller's scope and the token endpoint.
 */
@NullMarked
package dev.idem.spring.webflux;

import org.jspecify.annotations.NullMarked;
