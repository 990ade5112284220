/** Idempotency-Key semantics for Spring MVC: the filter, caller scopes and the token endpoint. */
@NullMarked
package dev.idem.spring.web;

import org.jspecify.annotations.NullMarked;
