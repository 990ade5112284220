/** Not API: may change in any release. */
@NullMarked
package dev.idem.jdbc.internal;

import org.jspecify.annotations.NullMarked;
