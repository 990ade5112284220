/** Idempotency-Key semantics for Spring MVC: the filter, caller scopes and the token endpoint. */
package dev.idem.spring.web;
