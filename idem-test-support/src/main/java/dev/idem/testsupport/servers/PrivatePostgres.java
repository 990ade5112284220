package dev.idem.testsupport.servers;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A PostgreSQL server of a test's (or tool's) own: {@code initdb} into a temporary folder, started
 * with {@code pg_ctl} on a free port of 127.0.0.1 with trust authentication for {@code postgres},
 * so that it may be stopped and started mid-load: the shared server at 5432 never is. It takes the
 * newest server under {@code /usr/lib/postgresql} (Debian's layout); as root, the server runs as
 * the {@code postgres} user, since PostgreSQL refuses to run as root. A shutdown hook stops the
 * server if the JVM ends first; {@link #close} appends the server's log to the given one and
 * deletes the folder.
 */
public final class PrivatePostgres implements AutoCloseable {

  private static final Path INSTALLS = Path.of("/usr/lib/postgresql");

  // The server writes its log in its own folder (as its user); close appends it to the log.
  private static final String SERVER_LOG = "server.log";

  // What pg_ctl passes on to the server's command line unquoted: no spaces, quotes or options.
  private static final Pattern SETTING = Pattern.compile("[A-Za-z0-9_.-]+");

  private final Path bin;
  private final Path data;
  private final File log;
  private final int port;
  private final Map<String, String> settings;
  private final Thread stopper;

  private PrivatePostgres(Path bin, Path data, File log, int port, Map<String, String> settings) {
    this.bin = bin;
    this.data = data;
    this.log = log;
    this.port = port;
    this.settings = Map.copyOf(settings);
    this.stopper = new Thread(this::stopQuietly, "stop postgres " + port);
    Runtime.getRuntime().addShutdownHook(stopper);
  }

  /**
   * Creates and starts one, and waits until it accepts connections.
   *
   * @param log where the server's output goes (appended)
   * @throws IllegalStateException when no PostgreSQL server is installed, or it does not start
   */
  public static PrivatePostgres start(File log) throws IOException, InterruptedException {
    return start(log, Map.of());
  }

  /**
   * Creates and starts one with server settings of its own ({@code shared_buffers} to {@code 6GB},
   * say), given to the server at every start as {@code -c name=value}.
   *
   * @param settings names and values of letters, digits, {@code _}, {@code .} and {@code -} only
   * @throws IllegalArgumentException for a name or value with any other character
   * @throws IllegalStateException when no PostgreSQL server is installed, or it does not start
   */
  public static PrivatePostgres start(File log, Map<String, String> settings)
      throws IOException, InterruptedException {
    settings.forEach(
        (name, value) -> {
          if (!SETTING.matcher(name).matches() || !SETTING.matcher(value).matches()) {
            throw new IllegalArgumentException(
                "a server setting is not a plain name and value: " + name + "=" + value);
          }
        });
    Path bin = newestInstall();
    Path data = Files.createTempDirectory("idem-postgres-");
    PrivatePostgres postgres = new PrivatePostgres(bin, data, log, freePort(), settings);
    try {
      if (asRoot()) {
        postgres.run(List.of("chown", "postgres:postgres", data.toString()), false);
      }
      postgres.run(
          List.of(
              bin.resolve("initdb").toString(),
              "-D",
              data.toString(),
              "-U",
              "postgres",
              "--auth=trust",
              "-E",
              "UTF8",
              "--no-sync"),
          true);
      postgres.begin();
      return postgres;
    } catch (IOException | InterruptedException | RuntimeException e) {
      postgres.close();
      throw e;
    }
  }

  public int port() {
    return port;
  }

  /** The server's data folder, deleted by {@link #close}. */
  public Path folder() {
    return data;
  }

  /** The JDBC URL of {@code database} on this server, as user {@code postgres}. */
  public String jdbcUrl(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
  }

  /** Creates an empty database. */
  public void createDatabase(String name) throws IOException, InterruptedException {
    run(
        List.of(
            bin.resolve("createdb").toString(),
            "-h",
            "127.0.0.1",
            "-p",
            Integer.toString(port),
            "-U",
            "postgres",
            name),
        false);
  }

  /**
   * Stops the server at once ({@code pg_ctl stop -m immediate}): every connection is cut, nothing
   * is flushed but what the write-ahead log already holds, as in a crash; the next start recovers.
   */
  public void stop() throws IOException, InterruptedException {
    run(pgCtl("stop", "-m", "immediate"), true);
  }

  /** Starts the stopped server again on the same port and folder, and waits for it. */
  public void begin() throws IOException, InterruptedException {
    StringBuilder options =
        new StringBuilder(
            "-p " + port + " -c listen_addresses=127.0.0.1 -c unix_socket_directories=" + data);
    settings.forEach(
        (name, value) -> options.append(" -c ").append(name).append('=').append(value));
    run(pgCtl("start", "-l", data.resolve(SERVER_LOG).toString(), "-o", options.toString()), true);
  }

  /** Stops the server if it runs, and deletes its folder. */
  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(stopper);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs anyway
    }
    stopQuietly();
    try {
      Path server = data.resolve(SERVER_LOG);
      if (Files.exists(server)) {
        Files.write(
            log.toPath(),
            Files.readAllBytes(server),
            java.nio.file.StandardOpenOption.CREATE,
            java.nio.file.StandardOpenOption.APPEND);
      }
    } catch (IOException e) {
      // the server's log is lost with its folder
    }
    try (Stream<Path> files = Files.walk(data)) {
      files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
    } catch (IOException e) {
      // a temporary folder left behind
    }
  }

  private void stopQuietly() {
    try {
      if (Files.exists(data.resolve("postmaster.pid"))) {
        stop();
      }
    } catch (IOException | RuntimeException e) {
      // already gone
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private List<String> pgCtl(String... args) {
    List<String> command = new ArrayList<>(List.of(bin.resolve("pg_ctl").toString()));
    command.addAll(List.of("-D", data.toString(), "-w", "-t", "60"));
    command.addAll(List.of(args));
    return command;
  }

  // Runs a command to its end, as the server's user when asked; its output goes to the log.
  private void run(List<String> command, boolean asServer)
      throws IOException, InterruptedException {
    List<String> full = new ArrayList<>();
    if (asServer && asRoot()) {
      full.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    full.addAll(command);
    Process process =
        new ProcessBuilder(full)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log))
            .start();
    if (!process.waitFor(90, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException(String.join(" ", full) + " did not end in 90 s; see " + log);
    }
    if (process.exitValue() != 0) {
      throw new IllegalStateException(
          String.join(" ", full) + " exited with " + process.exitValue() + "; see " + log);
    }
  }

  private static boolean asRoot() {
    return "root".equals(System.getProperty("user.name"));
  }

  private static Path newestInstall() throws IOException {
    if (!Files.isDirectory(INSTALLS)) {
      throw new IllegalStateException("no PostgreSQL server under " + INSTALLS);
    }
    try (Stream<Path> versions = Files.list(INSTALLS)) {
      return versions
          .filter(v -> Files.isExecutable(v.resolve("bin/initdb")))
          .max(Comparator.comparing(v -> Integer.parseInt(v.getFileName().toString())))
          .map(v -> v.resolve("bin"))
          .orElseThrow(() -> new IllegalStateException("no initdb under " + INSTALLS));
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
