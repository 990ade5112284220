package dev.idem.testsupport.servers;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One shop process ({@code java -jar} of the shop's executable jar) on a port of its own, its
 * output appended to a log file, for the chaos tool and the end-to-end benchmark. {@link #kill} is
 * a SIGKILL: no shutdown hook, no graceful stop.
 */
public final class ShopProcess implements AutoCloseable {

  private static final Duration READY_WITHIN = Duration.ofSeconds(180);

  private final int number;
  private final int port;
  private final List<String> command;
  private final Map<String, String> environment;
  private final Path log;
  private @Nullable Process process;

  public ShopProcess(
      int number, int port, List<String> command, Map<String, String> environment, Path log) {
    this.number = number;
    this.port = port;
    this.command = List.copyOf(command);
    this.environment = Map.copyOf(environment);
    this.log = log;
  }

  public int number() {
    return number;
  }

  public URI uri() {
    return URI.create("http://127.0.0.1:" + port + "/");
  }

  /** Starts the process; {@link #awaitReady} waits for it to answer. */
  public void launch() throws IOException {
    List<String> args = new ArrayList<>(command);
    args.add("--server.port=" + port);
    ProcessBuilder builder =
        new ProcessBuilder(args)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    builder.environment().putAll(environment);
    process = builder.start();
  }

  /** Waits until {@code GET /api/products} answers 200 as admin. */
  public void awaitReady(String adminPassword) throws IOException, InterruptedException {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    HttpRequest probe =
        HttpRequest.newBuilder(uri().resolve("/api/products"))
            .timeout(Duration.ofSeconds(5))
            .header("Authorization", basic("admin", adminPassword))
            .GET()
            .build();
    Process process = this.process;
    if (process == null) {
      throw new IllegalStateException("shop #" + number + " was not launched");
    }
    long deadline = System.nanoTime() + READY_WITHIN.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IOException(
            "shop #" + number + " exited with " + process.exitValue() + "; see " + log);
      }
      try {
        if (http.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(250); // polling a process that is starting up
    }
    throw new IOException("shop #" + number + " not ready in " + READY_WITHIN + "; see " + log);
  }

  public boolean alive() {
    return process != null && process.isAlive();
  }

  /** SIGKILL, and waits for the process to be gone. */
  public void kill() throws InterruptedException {
    Process process = this.process;
    if (process != null && process.isAlive()) {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
    }
  }

  @Override
  public void close() throws InterruptedException {
    kill();
  }

  private static String basic(String user, String password) {
    return "Basic "
        + Base64.getEncoder()
            .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }
}
