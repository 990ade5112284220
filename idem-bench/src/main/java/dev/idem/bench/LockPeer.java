package dev.idem.bench;

import java.time.Duration;

/**
 * A lock library in the lock-peers benchmark, set up as its own documentation recommends, on two
 * nodes: two clients with connections and threads of their own, as two processes of one service
 * would have. Every lock is taken with a 30 s lease ({@link #LEASE}) and released at once.
 *
 * @param name what the report calls it
 * @param store the server that keeps the locks
 * @param take takes a lock on a node
 * @param shutdown closes both nodes' clients and drops what the peer created on the server
 */
record LockPeer(String name, String store, Take take, AutoCloseable shutdown) {

  /** The lease of every lock the benchmark takes. */
  static final Duration LEASE = Duration.ofSeconds(30);

  /** Takes a lock on one node. */
  @FunctionalInterface
  interface Take {
    /**
     * Takes {@code lock} on {@code node} (0 or 1), waiting up to {@code wait} for its holder.
     *
     * @return what releases it, or null if it was not taken within {@code wait}
     */
    Release tryLock(int node, String lock, Duration wait) throws Exception;
  }

  /** Releases one taken lock; called on the thread that took it. */
  @FunctionalInterface
  interface Release {
    void release() throws Exception;
  }
}
