package dev.idem.shop.messaging;

import dev.idem.spring.Idempotent;
import java.sql.Connection;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.modulith.events.ApplicationModuleListener;

/**
 * The loyalty points of the embedded default, straight from Spring Modulith's event publication
 * registry: after a payment's commit the registry hands its {@link PaymentSucceeded} to this
 * listener, in a transaction of the listener's own, and hands it again after a failure or a crash
 * until the listener completes. Idem keys the listener by the event's {@code @EventId} and, with
 * {@code idem.events.store: jdbc}, writes its record in the listener's transaction, beside the
 * points: a publication delivered again (resubmitted, or left incomplete by a process that died
 * between the points' commit and the registry's note) finds the record and adds nothing. Over
 * RabbitMQ (profile services) the listener relays the event and the queue's consumer does the same
 * ({@code dev.idem.shop.services.RabbitConfig}).
 */
public class LoyaltyListener {

  private final LoyaltyPoints points;
  private final JdbcTemplate jdbc;

  LoyaltyListener(LoyaltyPoints points, JdbcTemplate jdbc) {
    this.points = points;
    this.jdbc = jdbc;
  }

  /** Public, and the class not final: the bean is proxied for the advice. */
  @Idempotent(operation = LoyaltyPoints.LISTENER)
  @ApplicationModuleListener
  public void addPoints(PaymentSucceeded event) {
    jdbc.execute(
        (ConnectionCallback<Void>)
            (Connection c) -> {
              points.add(c, event);
              return null;
            });
  }
}
