/** Not API: may change in any release. */
@NullMarked
package dev.idem.spring.autoconfigure.internal;

import org.jspecify.annotations.NullMarked;
