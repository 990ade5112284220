package dev.idem.testsupport.net;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** A TCP server on 127.0.0.1 that writes back every byte it reads, a thread per connection. */
final class EchoServer implements AutoCloseable {

  private final ServerSocket server;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

  EchoServer() throws IOException {
    server = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
    Thread acceptor = new Thread(this::acceptLoop, "echo-" + server.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return server.getLocalPort();
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket socket = server.accept();
        sockets.add(socket);
        Thread echo = new Thread(() -> echo(socket), "echo-" + port() + "-conn");
        echo.setDaemon(true);
        echo.start();
      } catch (IOException e) {
        return;
      }
    }
  }

  private void echo(Socket socket) {
    try (socket) {
      InputStream in = socket.getInputStream();
      OutputStream out = socket.getOutputStream();
      byte[] buffer = new byte[8192];
      int n;
      while ((n = in.read(buffer)) >= 0) {
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // the client went away
    } finally {
      sockets.remove(socket);
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket socket : sockets) {
      socket.close();
    }
  }
}
