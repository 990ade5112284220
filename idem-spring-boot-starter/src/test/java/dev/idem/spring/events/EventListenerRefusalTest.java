package dev.idem.spring.events;

import static dev.idem.spring.StartFailures.stoppedTheStart;

import dev.idem.spring.EventId;
import dev.idem.spring.Idempotent;
import dev.idem.spring.autoconfigure.IdemAopAutoConfiguration;
import dev.idem.spring.autoconfigure.IdemAutoConfiguration;
import dev.idem.spring.events.EventListenerKeyTest.Paid;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.event.EventListener;

/** Event listeners Idem cannot key or follow, each refused at start-up with what to change. */
class EventListenerRefusalTest {

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(IdemAutoConfiguration.class, IdemAopAutoConfiguration.class));

  public static class NoIdentity {
    public record Plain(String orderNo) {}

    @Idempotent
    @EventListener
    public void on(Plain event) {}
  }

  public static class TwoIdentities {
    public record Twice(@EventId String a, @EventId String b) {}

    @Idempotent
    @EventListener
    public void on(Twice event) {}
  }

  public static class Unreadable {
    public static class Hidden {
      @EventId private String id;
    }

    @Idempotent
    @EventListener
    public void on(Hidden event) {}
  }

  public static class Returning {
    @Idempotent
    @EventListener
    public String on(Paid event) {
      return "next";
    }
  }

  public static class KeyedReturning {
    @Idempotent(key = "#event.eventId")
    @EventListener
    public String on(Paid event) {
      return "next";
    }
  }

  public static class PrivateIdentity {
    public static class Tucked {
      @EventId
      String id() {
        return "x";
      }
    }

    @Idempotent
    @EventListener
    public void on(Tucked event) {}
  }

  public static class Resumable {
    @Idempotent(key = "#event.eventId", resumable = true)
    @EventListener
    public void on(Paid event) {}
  }

  public static class StaticIdentity {
    public static class Odd {
      @EventId public static String ID = "same";
    }

    @Idempotent
    @EventListener
    public void on(Odd event) {}
  }

  public static class NoParameter {
    @Idempotent
    @EventListener(Paid.class)
    public void on() {}
  }

  @Test
  void aListenerWhoseEventNamesNoSingleReadableIdentityStopsTheStart() {
    runner
        .withBean(NoIdentity.class)
        .run(c -> stoppedTheStart(c, "NoIdentity.on", "marks no property with @EventId"));
    runner
        .withBean(TwoIdentities.class)
        .run(c -> stoppedTheStart(c, "TwoIdentities.on", "[a(), b()]"));
    runner
        .withBean(Unreadable.class)
        .run(c -> stoppedTheStart(c, "Unreadable.on", "field id has no getter"));
    runner
        .withBean(NoParameter.class)
        .run(c -> stoppedTheStart(c, "NoParameter.on", "takes 0 parameters"));
    runner
        .withBean(Returning.class)
        .run(c -> stoppedTheStart(c, "Returning.on", "returns String", "publishes"));
    runner.withBean(Resumable.class).run(c -> stoppedTheStart(c, "Resumable.on", "resumable"));
    runner
        .withBean(KeyedReturning.class)
        .run(c -> stoppedTheStart(c, "KeyedReturning.on", "returns String"));
    runner
        .withBean(PrivateIdentity.class)
        .run(c -> stoppedTheStart(c, "PrivateIdentity.on", "is not public"));
    runner
        .withBean(StaticIdentity.class)
        .run(c -> stoppedTheStart(c, "StaticIdentity.on", "is static"));
  }
}
