/** Spring Boot support: auto-configuration, HTTP semantics, tokens, annotations and metrics. */
package dev.idem.spring;
