package dev.idem.testsupport.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FaultProxyTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private EchoServer echo;
  private FaultProxy proxy;

  @BeforeEach
  void start() throws IOException {
    echo = new EchoServer();
    proxy = FaultProxy.start("127.0.0.1", echo.port());
  }

  @AfterEach
  void stop() throws IOException {
    proxy.close();
    echo.close();
  }

  @Test
  void forwardsALargePayloadByteForByteBothWays() throws Exception {
    byte[] payload = new byte[4 * 1024 * 1024];
    new Random(7).nextBytes(payload);
    try (Socket socket = connect()) {
      OutputStream out = socket.getOutputStream();
      // written from another thread: the echo comes back while we are still sending
      CompletableFuture<Void> writing =
          CompletableFuture.runAsync(
              () -> {
                try {
                  out.write(payload);
                  out.flush();
                } catch (IOException e) {
                  throw new IllegalStateException(e);
                }
              });
      byte[] echoed = socket.getInputStream().readNBytes(payload.length);
      writing.get();
      assertThat(echoed).isEqualTo(payload);
    }
    // counted just after each write, so the last count may trail the bytes the client has read
    await().atMost(WAIT).until(() -> proxy.bytesForwarded() == 2L * payload.length);
  }

  @Test
  void latencyDelaysEveryChunkAndKeepsTheirOrder() throws Exception {
    Duration delay = Duration.ofMillis(40);
    proxy.latency(delay);
    try (Socket socket = connect()) {
      long started = System.nanoTime();
      assertThat(roundTrip(socket, "ping")).isEqualTo("ping");
      // a lower bound only: one chunk out and one back are each held for the delay
      assertThat(Duration.ofNanos(System.nanoTime() - started))
          .isGreaterThanOrEqualTo(delay.multipliedBy(2));

      OutputStream out = socket.getOutputStream();
      byte[] sent = new byte[200];
      for (int i = 0; i < sent.length; i++) {
        sent[i] = (byte) i;
        out.write(sent[i]);
        out.flush();
      }
      assertThat(socket.getInputStream().readNBytes(sent.length)).isEqualTo(sent);
    }
  }

  @Test
  void blackholeKeepsTheConnectionOpenAndDropsWhatIsSent() throws Exception {
    try (Socket socket = connect()) {
      assertThat(roundTrip(socket, "a")).isEqualTo("a");
      proxy.blackhole(true);
      socket.getOutputStream().write("lost".getBytes());
      socket.getOutputStream().flush();
      await().atMost(WAIT).until(() -> proxy.bytesDropped() == 4);
      socket.setSoTimeout(200);
      assertThatThrownBy(() -> socket.getInputStream().read())
          .isInstanceOf(SocketTimeoutException.class);
      assertThat(proxy.openConnections()).isEqualTo(1);

      proxy.blackhole(false);
      socket.setSoTimeout((int) WAIT.toMillis());
      assertThat(roundTrip(socket, "b")).isEqualTo("b");
    }
  }

  @Test
  void holdDelaysWhatIsSentUntilItIsLifted() throws Exception {
    try (Socket socket = connect()) {
      assertThat(roundTrip(socket, "a")).isEqualTo("a");
      proxy.hold(true);
      socket.getOutputStream().write("late".getBytes());
      socket.getOutputStream().flush();
      socket.setSoTimeout(200);
      assertThatThrownBy(() -> socket.getInputStream().read())
          .isInstanceOf(SocketTimeoutException.class);

      proxy.hold(false);
      socket.setSoTimeout((int) WAIT.toMillis());
      assertThat(new String(socket.getInputStream().readNBytes(4))).isEqualTo("late");
      assertThat(roundTrip(socket, "b")).isEqualTo("b");
    }
    assertThat(proxy.bytesDropped()).isZero();
  }

  @Test
  void refuseClosesNewConnectionsButNotOpenOnes() throws Exception {
    try (Socket open = connect()) {
      assertThat(roundTrip(open, "a")).isEqualTo("a");
      proxy.refuse(true);
      try (Socket refused = connect()) {
        assertEndsOrResets(refused);
      }
      assertThat(roundTrip(open, "b")).isEqualTo("b");
      assertThat(proxy.openConnections()).isEqualTo(1);
    }
  }

  @Test
  void cutClosesEveryOpenConnection() throws Exception {
    try (Socket first = connect();
        Socket second = connect()) {
      assertThat(roundTrip(first, "a")).isEqualTo("a");
      assertThat(roundTrip(second, "b")).isEqualTo("b");

      assertThat(proxy.cut()).isEqualTo(2);

      assertEndsOrResets(first);
      assertEndsOrResets(second);
      assertThat(proxy.openConnections()).isZero();
      assertThat(proxy.cut()).isZero();
    }
    try (Socket again = connect()) {
      assertThat(roundTrip(again, "c")).isEqualTo("c");
    }
  }

  @Test
  void resetRestoresCleanForwarding() throws Exception {
    proxy.latency(Duration.ofSeconds(30));
    proxy.blackhole(true);
    proxy.hold(true);
    proxy.refuse(true);
    proxy.reset();
    try (Socket socket = connect()) {
      assertThat(roundTrip(socket, "clean")).isEqualTo("clean");
    }
    assertThat(proxy.bytesDropped()).isZero();
  }

  @Test
  void closeStopsListeningCutsConnectionsAndLeavesNoThreads() throws Exception {
    String prefix = "fault-proxy-" + proxy.port() + "-";
    try (Socket delayed = connect();
        Socket held = connect()) {
      assertThat(roundTrip(delayed, "a")).isEqualTo("a");
      assertThat(roundTrip(held, "b")).isEqualTo("b");
      // threads asleep in a delay or waiting for a hold to end must end too
      proxy.latency(Duration.ofSeconds(30));
      delayed.getOutputStream().write('x');
      delayed.getOutputStream().flush();
      proxy.hold(true);
      held.getOutputStream().write('y');
      held.getOutputStream().flush();
      await().atMost(WAIT).until(() -> threadsNamed(prefix) == 5);

      proxy.close();

      assertEndsOrResets(delayed);
      assertEndsOrResets(held);
      assertThatThrownBy(this::connect).isInstanceOf(ConnectException.class);
      await().atMost(WAIT).until(() -> threadsNamed(prefix) == 0);
    }
    proxy.close(); // again: nothing happens
  }

  @Test
  void aLostReplyReachedTheServerAndTheNextOnePasses() throws Exception {
    proxy.loseReplies(1);
    try (Socket first = connect()) {
      first.getOutputStream().write("ping".getBytes());
      first.getOutputStream().flush();
      assertEndsOrResets(first);
    }
    try (Socket second = connect()) {
      assertThat(roundTrip(second, "pong")).isEqualTo("pong");
    }
    // the first request reached the echo server: it answered, and the proxy dropped the answer
    assertThat(proxy.bytesDropped()).isEqualTo(4);
  }

  private Socket connect() throws IOException {
    Socket socket = new Socket(proxy.host(), proxy.port());
    socket.setSoTimeout((int) WAIT.toMillis());
    return socket;
  }

  private static String roundTrip(Socket socket, String text) throws IOException {
    socket.getOutputStream().write(text.getBytes());
    socket.getOutputStream().flush();
    return new String(socket.getInputStream().readNBytes(text.length()));
  }

  /** The peer closed: the next read sees end of stream or a reset, whichever the kernel reports. */
  private static void assertEndsOrResets(Socket socket) {
    InputStream in;
    try {
      in = socket.getInputStream();
      assertThat(in.read()).isEqualTo(-1);
    } catch (IOException e) {
      assertThat(e).isNotInstanceOf(SocketTimeoutException.class).hasMessageContaining("reset");
    }
  }

  private static long threadsNamed(String prefix) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith(prefix))
        .count();
  }
}
