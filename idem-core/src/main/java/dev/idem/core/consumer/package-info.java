@NullMarked
package dev.idem.core.consumer;

import org.jspecify.annotations.NullMarked;
