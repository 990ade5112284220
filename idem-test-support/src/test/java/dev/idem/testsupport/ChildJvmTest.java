package dev.idem.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChildJvmTest {

  /** Prints "working", then hangs; on a normal end it would write a marker file. */
  public static final class HangingChild {
    public static void main(String[] args) throws Exception {
      Runtime.getRuntime()
          .addShutdownHook(new Thread(() -> write(Path.of(args[0]), "shutdown hook ran")));
      System.out.println("working");
      System.out.flush();
      new CountDownLatch(1).await();
    }

    private static void write(Path p, String text) {
      try {
        Files.writeString(p, text);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /** Exits with the code it is given. */
  public static final class ExitingChild {
    public static void main(String[] args) {
      System.out.println("bye");
      System.exit(Integer.parseInt(args[0]));
    }
  }

  @Test
  void sigkillEndsTheChildMidWorkWithoutRunningItsShutdownHooks(@TempDir Path dir)
      throws Exception {
    Path marker = dir.resolve("marker");
    try (ChildJvm child = ChildJvm.start(HangingChild.class, marker.toString())) {
      assertThat(child.awaitLine("working", Duration.ofSeconds(60))).isEqualTo("working");
      assertThat(child.isAlive()).isTrue();
      assertThat(child.kill()).isEqualTo(137);
      assertThat(child.isAlive()).isFalse();
    }
    assertThat(marker).doesNotExist();
  }

  @Test
  void reportsTheExitCodeOfAChildThatEndsByItself() throws Exception {
    try (ChildJvm child = ChildJvm.start(ExitingChild.class, "3")) {
      assertThat(child.awaitLine("bye", Duration.ofSeconds(60))).isEqualTo("bye");
      assertThat(child.awaitExit(Duration.ofSeconds(30))).isEqualTo(3);
    }
  }

  @Test
  void failsWithWhatTheChildPrintedWhenTheLineNeverComes() throws Exception {
    try (ChildJvm child = ChildJvm.start(ExitingChild.class, "0")) {
      assertThatThrownBy(() -> child.awaitLine("never", Duration.ofSeconds(20)))
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("bye");
    }
  }
}
