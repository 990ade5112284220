@NullMarked
package dev.idem.core.lock;

import org.jspecify.annotations.NullMarked;
