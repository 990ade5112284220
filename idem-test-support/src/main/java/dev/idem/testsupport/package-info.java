@NullMarked
package dev.idem.testsupport;

import org.jspecify.annotations.NullMarked;
