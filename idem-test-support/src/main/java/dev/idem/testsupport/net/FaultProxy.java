package dev.idem.testsupport.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on 127.0.0.1 that forwards to one server and can be told to misbehave: add latency,
 * swallow traffic (a silent partition), refuse new connections, or cut every open connection.
 *
 * <p>Point a client (a JDBC URL, a Redis URI) at {@link #host()} and {@link #port()} instead of the
 * server. Faults act on the byte stream, not on packets: the proxy cannot lose or reorder single
 * segments the way a lossy network does, and the kernels on both sides still see healthy TCP
 * connections to the proxy.
 *
 * <p>Two kinds of partition: {@link #hold(boolean)} delays bytes until it is lifted, as a real
 * network partition does to a live TCP connection; {@link #blackhole(boolean)} drops them, which a
 * real network never does inside a connection, so a client's connection used during a blackhole
 * stays out of step with the server until it is closed (a {@link #cut()} after lifting it).
 *
 * <p>Every setting takes effect at once, for open and new connections alike, and may be changed
 * from any thread. Each connection is served by two daemon threads (one per direction) named {@code
 * fault-proxy-<port>-...}; {@link #close()} ends them all.
 */
public final class FaultProxy implements AutoCloseable {

  private static final String LOOPBACK = "127.0.0.1";
  private static final int CONNECT_TIMEOUT_MILLIS = 5_000;

  private final ServerSocket server;
  private final InetSocketAddress target;
  private final String threadPrefix;
  private final Thread acceptor;
  private final Set<ProxiedConnection> connections = ConcurrentHashMap.newKeySet();
  private final AtomicInteger connectionCount = new AtomicInteger();
  private final Faults faults = new Faults();
  private volatile boolean closed;

  private FaultProxy(ServerSocket server, InetSocketAddress target) {
    this.server = server;
    this.target = target;
    this.threadPrefix = "fault-proxy-" + server.getLocalPort() + "-";
    this.acceptor = new Thread(this::acceptLoop, threadPrefix + "accept");
    acceptor.setDaemon(true);
  }

  /** Starts a proxy to {@code targetHost:targetPort}, listening on a free port of 127.0.0.1. */
  public static FaultProxy start(String targetHost, int targetPort) {
    return start(0, targetHost, targetPort);
  }

  /**
   * Starts a proxy to {@code targetHost:targetPort}, listening on {@code listenPort} of 127.0.0.1
   * (0 for a free port).
   *
   * @throws UncheckedIOException when the port cannot be bound
   */
  public static FaultProxy start(int listenPort, String targetHost, int targetPort) {
    Objects.requireNonNull(targetHost, "targetHost");
    try {
      ServerSocket server = new ServerSocket();
      server.setReuseAddress(true);
      server.bind(new InetSocketAddress(InetAddress.getByName(LOOPBACK), listenPort), 128);
      FaultProxy proxy = new FaultProxy(server, new InetSocketAddress(targetHost, targetPort));
      proxy.acceptor.start();
      return proxy;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on port " + listenPort, e);
    }
  }

  /** The port the proxy listens on. */
  public int port() {
    return server.getLocalPort();
  }

  /** The address the proxy listens on: always {@code "127.0.0.1"}. */
  public String host() {
    return LOOPBACK;
  }

  /**
   * Holds every chunk of bytes back for {@code delay} before it is passed on, in both directions.
   * Bytes keep their order; {@link Duration#ZERO} turns latency off.
   */
  public void latency(Duration delay) {
    Objects.requireNonNull(delay, "delay");
    if (delay.isNegative()) {
      throw new IllegalArgumentException("negative latency: " + delay);
    }
    faults.latency = delay;
  }

  /**
   * While on, connections stay open but nothing passes: bytes read from either side are dropped,
   * not queued. Clients see a silent partition and wait until their own timeouts fire. Bytes
   * dropped are gone for good, so a connection used during a blackhole is out of step with the
   * server after it: {@link #cut()} it when lifting the blackhole, or use {@link #hold(boolean)}.
   */
  public void blackhole(boolean on) {
    faults.blackhole = on;
  }

  /**
   * While on, connections stay open and bytes are held back, not dropped: each direction stops
   * passing bytes on and, once the proxy's and the kernels' buffers are full, stops reading, as in
   * a partition that TCP rides out by retransmitting. Clients wait until their own timeouts fire;
   * when it is turned off, everything held arrives late, in order. New connections are still
   * accepted (their first bytes are held too).
   */
  public void hold(boolean on) {
    faults.hold(on);
  }

  /**
   * While on, every new connection is closed with a reset as soon as it is accepted, as by a server
   * that is down. Open connections are left alone. (The client's connect itself succeeds, since the
   * proxy still listens; the failure shows on first use.)
   */
  public void refuse(boolean on) {
    faults.refuse = on;
  }

  /**
   * Closes every open connection now, with a TCP reset on both sides where the platform allows it.
   *
   * @return how many connections were cut
   */
  public int cut() {
    int cut = 0;
    for (ProxiedConnection connection : connections) {
      if (connection.close(true)) {
        cut++;
      }
    }
    return cut;
  }

  /**
   * Loses the next {@code count} replies: each of the next {@code count} times a server sends bytes
   * on any connection, the proxy drops them and resets that connection on both sides. The request
   * reached the server and ran; its client sees the connection reset before any answer, as when a
   * reply is lost on the way.
   */
  public void loseReplies(int count) {
    if (count < 0) {
      throw new IllegalArgumentException("count must not be negative, was " + count);
    }
    faults.repliesToLose.set(count);
  }

  /**
   * Turns every fault off: no latency, no blackhole, nothing held, no refusal, no reply lost. Open
   * connections stay open.
   */
  public void reset() {
    faults.latency = Duration.ZERO;
    faults.blackhole = false;
    faults.hold(false);
    faults.refuse = false;
    faults.repliesToLose.set(0);
  }

  /** How many proxied connections are open now. */
  public int openConnections() {
    return (int) connections.stream().filter(c -> !c.isClosed()).count();
  }

  /** Bytes passed on so far, both directions together. */
  public long bytesForwarded() {
    return faults.forwarded.get();
  }

  /**
   * Bytes swallowed by a {@link #blackhole(boolean) blackhole} so far, both directions together.
   */
  public long bytesDropped() {
    return faults.dropped.get();
  }

  /**
   * Stops listening and cuts every open connection; returns once the proxy's threads have ended (or
   * after a few seconds if one will not). Calling it again does nothing.
   */
  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      // closing a listening socket has nothing left to report
    }
    join(acceptor);
    cut();
    for (ProxiedConnection connection : connections) {
      connection.join();
    }
  }

  @Override
  public String toString() {
    return "FaultProxy[" + LOOPBACK + ":" + port() + " -> " + target + "]";
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // the server socket was closed
      }
      if (faults.refuse || closed) {
        ProxiedConnection.abort(client);
        continue;
      }
      open(client);
    }
  }

  private void open(Socket client) {
    Socket upstream = new Socket();
    try {
      upstream.connect(target, CONNECT_TIMEOUT_MILLIS);
    } catch (IOException e) {
      ProxiedConnection.abort(upstream);
      ProxiedConnection.abort(client);
      return;
    }
    String name = threadPrefix + connectionCount.incrementAndGet();
    ProxiedConnection connection =
        new ProxiedConnection(name, client, upstream, faults, connections::remove);
    connections.add(connection);
    connection.start();
    if (closed) {
      connection.close(true); // close() may have cut before this connection was registered
    }
  }

  private static void join(Thread thread) {
    try {
      thread.join(ProxiedConnection.JOIN_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
