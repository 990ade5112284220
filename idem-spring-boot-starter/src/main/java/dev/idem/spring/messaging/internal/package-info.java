/** The advice behind {@code @IdempotentListener} shared by every broker; not API. */
@NullMarked
package dev.idem.spring.messaging.internal;

import org.jspecify.annotations.NullMarked;
