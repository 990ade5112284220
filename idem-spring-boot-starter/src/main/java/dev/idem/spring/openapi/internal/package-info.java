/** What a guarded operation's OpenAPI description gains; not API. */
@NullMarked
package dev.idem.spring.openapi.internal;

import org.jspecify.annotations.NullMarked;
