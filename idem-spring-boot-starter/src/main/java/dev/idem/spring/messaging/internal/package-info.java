/** The advice behind {@code @IdempotentListener} shared by every broker; not API. */
package dev.idem.spring.messaging.internal;
