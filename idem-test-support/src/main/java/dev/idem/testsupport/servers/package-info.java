@NullMarked
package dev.idem.testsupport.servers;

import org.jspecify.annotations.NullMarked;
