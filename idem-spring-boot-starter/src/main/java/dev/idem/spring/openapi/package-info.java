/**
 * The Idempotency-Key semantics in the OpenAPI document that springdoc generates: {@link
 * dev.idem.spring.openapi.IdempotencyOpenApiCustomizer}.
 */
package dev.idem.spring.openapi;
