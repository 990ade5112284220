/**
 * Idempotent message listeners: {@link dev.idem.spring.messaging.IdempotentListener} on a Spring
 * AMQP {@code @RabbitListener} or Spring Kafka {@code @KafkaListener} method applies each message
 * once per consumer group and message id.
 */
@NullMarked
package dev.idem.spring.messaging;

import org.jspecify.annotations.NullMarked;
