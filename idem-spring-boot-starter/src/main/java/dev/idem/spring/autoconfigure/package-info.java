/** Spring Boot auto-configuration of the engine, the store and the Spring MVC filter. */
@NullMarked
package dev.idem.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;
