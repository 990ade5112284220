package dev.idem.spring.kafka;

import java.util.Map;

/**
 * The consumer that a crash test runs in a child JVM and kills: arguments are {@code --name=value}
 * properties of {@link KafkaTestApplication}; prints {@code READY} once its listeners run.
 */
public final class CrashingKafkaConsumer {

  private CrashingKafkaConsumer() {}

  public static void main(String[] args) {
    KafkaTestApplication.start(Map.of("logging.level.root", "WARN"), args);
    System.out.println("READY");
    System.out.flush();
  }
}
