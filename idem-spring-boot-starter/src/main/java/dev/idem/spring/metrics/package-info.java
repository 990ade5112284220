@NullMarked
package dev.idem.spring.metrics;

import org.jspecify.annotations.NullMarked;
