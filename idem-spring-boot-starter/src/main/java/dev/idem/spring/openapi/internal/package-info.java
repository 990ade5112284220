/** What a guarded operation's OpenAPI description gains; not API. */
package dev.idem.spring.openapi.internal;
