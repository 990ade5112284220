/** The advice behind {@code @IdempotentListener} on Spring AMQP listeners; not API. */
package dev.idem.spring.amqp.internal;
