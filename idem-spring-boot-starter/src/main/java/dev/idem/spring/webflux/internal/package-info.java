/** The WebFlux filter's parts; not an API. */
package dev.idem.spring.webflux.internal;
