@NullMarked
package dev.idem.core.memory;

import org.jspecify.annotations.NullMarked;
