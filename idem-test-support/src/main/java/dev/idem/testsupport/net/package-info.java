@NullMarked
package dev.idem.testsupport.net;

import org.jspecify.annotations.NullMarked;
