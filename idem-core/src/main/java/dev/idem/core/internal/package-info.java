/** Not API: may change in any release. */
@NullMarked
package dev.idem.core.internal;

import org.jspecify.annotations.NullMarked;
