/** The advice behind {@code @IdempotentListener} on Spring AMQP listeners; not API. */
@NullMarked
package dev.idem.spring.amqp.internal;

import org.jspecify.annotations.NullMarked;
