@NullMarked
package dev.idem.core;

import org.jspecify.annotations.NullMarked;
