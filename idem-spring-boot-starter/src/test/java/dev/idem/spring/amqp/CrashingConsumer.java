package dev.idem.spring.amqp;

import java.util.Map;

/**
 * The consumer that a crash test runs in a child JVM and kills: arguments are {@code --name=value}
 * properties of {@link AmqpTestApplication}; prints {@code READY} once its listeners consume.
 */
public final class CrashingConsumer {

  private CrashingConsumer() {}

  public static void main(String[] args) {
    AmqpTestApplication.start(Map.of("logging.level.root", "WARN"), args);
    System.out.println("READY");
    System.out.flush();
  }
}
