/** Not API: may change in any release. */
@NullMarked
package dev.idem.redis.internal;

import org.jspecify.annotations.NullMarked;
