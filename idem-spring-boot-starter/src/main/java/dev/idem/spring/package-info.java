/** Spring Boot support: auto-configuration, HTTP semantics, tokens, annotations and metrics. */
@NullMarked
package dev.idem.spring;

import org.jspecify.annotations.NullMarked;
