/** Not API: may change in any release. */
@NullMarked
package dev.idem.spring.web.internal;

import org.jspecify.annotations.NullMarked;
