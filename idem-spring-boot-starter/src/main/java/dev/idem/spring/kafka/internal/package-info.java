/** The advice behind {@code @IdempotentListener} on Spring Kafka listeners; not API. */
package dev.idem.spring.kafka.internal;
