/** The Redis backend: store, tokens and locks on Redis standalone and Cluster, with Lettuce. */
@NullMarked
package dev.idem.redis;

import org.jspecify.annotations.NullMarked;
