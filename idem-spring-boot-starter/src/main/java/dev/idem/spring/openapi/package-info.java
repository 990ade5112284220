/**
 * The Idempotency-Key semantics in the OpenAPI document that springdoc generates: {@link
 * dev.idem.spring.openapi.IdempotencyOpenApiCustomizer}.
 */
@NullMarked
package dev.idem.spring.openapi;

import org.jspecify.annotations.NullMarked;
