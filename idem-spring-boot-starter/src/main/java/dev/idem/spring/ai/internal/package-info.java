/** Not API: may change in any release. */
@NullMarked
package dev.idem.spring.ai.internal;

import org.jspecify.annotations.NullMarked;
