package dev.idem.testsupport.net;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * One client connection and its connection to the server, with a thread per direction copying bytes
 * through the current {@link Faults}. A direction that reaches end of stream half-closes the other
 * side, as TCP would; an error in either direction resets both sockets.
 */
final class ProxiedConnection {

  static final long JOIN_MILLIS = 5_000;
  private static final int BUFFER_BYTES = 16 * 1024;

  private final Socket client;
  private final Socket upstream;
  private final Faults faults;
  private final Consumer<ProxiedConnection> onEnded;
  private final Thread up;
  private final Thread down;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final AtomicInteger running = new AtomicInteger(2);

  ProxiedConnection(
      String name,
      Socket client,
      Socket upstream,
      Faults faults,
      Consumer<ProxiedConnection> onEnded) {
    this.client = client;
    this.upstream = upstream;
    this.faults = faults;
    this.onEnded = onEnded;
    this.up = daemon(name + "-up", () -> pump(client, upstream, false));
    this.down = daemon(name + "-down", () -> pump(upstream, client, true));
  }

  void start() {
    up.start();
    down.start();
  }

  boolean isClosed() {
    return closed.get();
  }

  /**
   * Closes both sockets, with a reset if {@code reset}, and wakes both threads.
   *
   * @return false if the connection was closed already
   */
  boolean close(boolean reset) {
    if (!closed.compareAndSet(false, true)) {
      return false;
    }
    if (reset) {
      abort(client);
      abort(upstream);
    } else {
      closeQuietly(client);
      closeQuietly(upstream);
    }
    up.interrupt();
    down.interrupt();
    return true;
  }

  /** Waits (a few seconds at most) for both threads to end. */
  void join() {
    try {
      up.join(JOIN_MILLIS);
      down.join(JOIN_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Closes {@code socket} with a TCP reset (linger 0) where the platform allows it. */
  static void abort(Socket socket) {
    try {
      socket.setSoLinger(true, 0);
    } catch (IOException e) {
      // already closed or never connected: a plain close is all that is left
    }
    closeQuietly(socket);
  }

  private void pump(Socket from, Socket to, boolean reply) {
    byte[] buffer = new byte[BUFFER_BYTES];
    boolean clean = false;
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      int n;
      while ((n = in.read(buffer)) >= 0) {
        if (reply && faults.loseReply()) {
          // the server has answered; the client never hears it, as when a reply is lost
          faults.dropped.addAndGet(n);
          close(true);
          return;
        }
        forward(buffer, n, out);
      }
      to.shutdownOutput();
      clean = true;
    } catch (IOException | InterruptedException e) {
      close(true);
    } finally {
      if (running.decrementAndGet() == 0) {
        if (clean) {
          close(false);
        }
        onEnded.accept(this);
      }
    }
  }

  private void forward(byte[] buffer, int n, OutputStream out)
      throws IOException, InterruptedException {
    faults.awaitRelease();
    Duration delay = faults.latency;
    if (!delay.isZero() && !faults.blackhole) {
      // sleeping in the one thread of this direction delays every chunk without reordering
      Thread.sleep(delay.toMillis(), delay.toNanosPart() % 1_000_000);
    }
    if (faults.blackhole) {
      faults.dropped.addAndGet(n);
      return;
    }
    out.write(buffer, 0, n);
    out.flush();
    faults.forwarded.addAndGet(n);
  }

  private static Thread daemon(String name, Runnable body) {
    Thread thread = new Thread(body, name);
    thread.setDaemon(true);
    return thread;
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // nothing to do about a socket that will not close
    }
  }
}
