/** The Redis backend: store, tokens and locks on Redis standalone and Cluster, with Lettuce. */
package dev.idem.redis;
