package dev.idem.testsupport;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A second JVM running a main class from the test's own class path, for crash tests: start it, wait
 * until it prints that it is mid-work, then {@link #kill()} it with SIGKILL, so that nothing in it
 * (no finally block, no shutdown hook) gets to clean up.
 */
public final class ChildJvm implements AutoCloseable {

  // Put on the queue when the child's output ends, so a waiter stops instead of timing out.
  private static final String END = new String("<end of output>");

  private final Process process;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final List<String> seen = new ArrayList<>();

  private ChildJvm(Process process) {
    this.process = process;
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                  lines.add(line);
                }
              } catch (IOException e) {
                lines.add("<output closed: " + e.getMessage() + ">");
              }
              lines.add(END);
            },
            "child-jvm-output");
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts {@code mainClass} with {@code args} in a new JVM on this JVM's class path. */
  public static ChildJvm start(Class<?> mainClass, String... args) throws IOException {
    String java =
        System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
    List<String> command = new ArrayList<>();
    command.add(java);
    command.add("-Xmx128m");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(mainClass.getName());
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    return new ChildJvm(process);
  }

  /**
   * Waits until the child prints a line starting with {@code prefix} and returns that line.
   *
   * @throws AssertionError if it does not within {@code timeout}, with everything it printed
   */
  public String awaitLine(String prefix, Duration timeout) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    for (long left = timeout.toNanos(); left > 0; left = end - System.nanoTime()) {
      String line = lines.poll(left, TimeUnit.NANOSECONDS);
      if (line == null) {
        break;
      }
      if (line == END) {
        lines.add(END);
        break;
      }
      seen.add(line);
      if (line.startsWith(prefix)) {
        return line;
      }
    }
    throw new AssertionError("child never printed '" + prefix + "'; it printed " + seen);
  }

  /** The lines the child printed up to the last one {@link #awaitLine} returned. */
  public List<String> seen() {
    return List.copyOf(seen);
  }

  /** Sends SIGKILL and waits for the process to end; returns its exit code (137 on Linux). */
  public int kill() throws InterruptedException {
    process.destroyForcibly();
    return process.waitFor();
  }

  /** Waits for the child to end by itself and returns its exit code. */
  public int awaitExit(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("child still running after " + timeout);
    }
    return process.exitValue();
  }

  /** True while the process runs. */
  public boolean isAlive() {
    return process.isAlive();
  }

  @Override
  public void close() {
    process.destroyForcibly();
  }
}
