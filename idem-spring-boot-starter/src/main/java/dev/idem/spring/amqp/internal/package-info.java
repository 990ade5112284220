/** The advice behind {@code @IdempotentListener}; not API. */
package dev.idem.spring.amqp.internal;
