/** The WebFlux filter's parts; not an API. */
@NullMarked
package dev.idem.spring.webflux.internal;

import org.jspecify.annotations.NullMarked;
