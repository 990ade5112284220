package dev.idem.bench;

import java.sql.Connection;

/**
 * A message de-duplicator in the dedup-peers benchmark, set up as its own documentation recommends:
 * it runs a message's effect unless that message id was handled before.
 *
 * @param name what the report calls it
 * @param store the server that remembers the handled ids
 * @param receive handles one delivery
 * @param shutdown closes its clients and drops what it created on the servers
 */
record DedupPeer(String name, String store, Receive receive, AutoCloseable shutdown) {

  /** Handles one delivery. */
  @FunctionalInterface
  interface Receive {
    /**
     * Runs {@code effect} unless {@code messageId} was handled before; returns normally when the
     * delivery may be acknowledged, throws when it should be delivered again.
     */
    void receive(String messageId, Effect effect) throws Exception;
  }

  /** The effect of one message: a row written on {@code connection}. */
  @FunctionalInterface
  interface Effect {
    void apply(Connection connection) throws Exception;
  }
}
