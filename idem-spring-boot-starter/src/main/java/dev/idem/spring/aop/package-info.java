/**
 * {@link dev.idem.spring.Idempotent @Idempotent} on any Spring bean method: jobs, callbacks, admin
 * actions. The key is a SpEL expression over the arguments; the return value is stored as JSON.
 */
package dev.idem.spring.aop;
