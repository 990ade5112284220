/** Spring Boot auto-configuration of the engine, the store and the Spring MVC filter. */
package dev.idem.spring.autoconfigure;
