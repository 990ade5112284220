/** The advice behind {@code @IdempotentListener} on Spring Kafka listeners; not API. */
@NullMarked
package dev.idem.spring.kafka.internal;

import org.jspecify.annotations.NullMarked;
