/** Not API: may change in any release. */
@NullMarked
package dev.idem.testsupport.internal;

import org.jspecify.annotations.NullMarked;
