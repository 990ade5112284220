/**
 * Idempotent Spring AMQP listeners: {@link dev.idem.spring.amqp.IdempotentListener} on a
 * {@code @RabbitListener} method applies each message once per consumer group and message id.
 */
package dev.idem.spring.messaging;
