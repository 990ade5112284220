/**
 * {@link dev.idem.spring.Idempotent @Idempotent} on any Spring bean method: jobs, callbacks, admin
 * actions. The key is a SpEL expression over the arguments; the return value is stored as JSON.
 */
@NullMarked
package dev.idem.spring.aop;

import org.jspecify.annotations.NullMarked;
