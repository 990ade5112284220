package dev.idem.spring.kafka.internal;

import java.time.Duration;
import org.springframework.kafka.support.Acknowledgment;

/**
 * The {@link Acknowledgment} a listener gets from the advice. The listener speaks in positions of
 * the list it was given (the records not processed before); the container counts in the batch it
 * polled: this translates, acknowledges no further than the records the advice handles (a record
 * without an id stops them), and tells the advice where a nack cut the batch, so that the claims
 * from there on are released rather than completed, and up to where the listener acknowledged its
 * records as done, so that their claims are kept when it throws later.
 */
final class HeldAcknowledgment implements Acknowledgment {

  private final Acknowledgment container;
  private final int[] positions;
  private final int handled;
  private final int total;
  private volatile int nackedAt = -1;
  private volatile int acknowledgedTo = -1;

  /**
   * @param positions for each element of the listener's list, its position in the container's batch
   * @param handled how many of the container's records the advice handles, from the first
   * @param total how many records the container handed over
   */
  HeldAcknowledgment(Acknowledgment container, int[] positions, int handled, int total) {
    this.container = container;
    this.positions = positions.clone();
    this.handled = handled;
    this.total = total;
  }

  /** The position in the container's batch from which a nack asked for a redelivery, or -1. */
  int nackedAt() {
    return nackedAt;
  }

  /**
   * The position in the container's batch up to which (inclusive) the listener acknowledged its
   * records as done, or -1.
   */
  int acknowledgedTo() {
    return acknowledgedTo;
  }

  @Override
  public void acknowledge() {
    acknowledgedTo = handled - 1;
    if (handled == total) {
      container.acknowledge();
    } else if (handled > 0) {
      container.acknowledge(handled - 1); // not past the record the error handler will get
    }
  }

  @Override
  public void acknowledge(int index) {
    container.acknowledge(positions[index]);
    acknowledgedTo = Math.max(acknowledgedTo, positions[index]);
  }

  @Override
  public void nack(Duration sleep) {
    nackedAt = 0;
    container.nack(sleep);
  }

  @Override
  public void nack(int index, Duration sleep) {
    nackedAt = positions[index];
    container.nack(nackedAt, sleep);
  }

  @Override
  public boolean isOutOfOrderCommit() {
    return container.isOutOfOrderCommit();
  }
}
