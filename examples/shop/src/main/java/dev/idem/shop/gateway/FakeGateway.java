package dev.idem.shop.gateway;

import dev.idem.shop.ShopProperties;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import org.springframework.stereotype.Component;

/**
 * A third-party card gateway inside the application, served over HTTP ({@link GatewayController}):
 * it takes time, declines some charges, loses some answers (the caller times out without knowing
 * whether money moved), calls back asynchronously (possibly several times, before or after its
 * synchronous answer), and deduplicates by the Idempotency-Key it receives, as Stripe does, so
 * asking again with the same key is always safe.
 *
 * <p>Behaviour comes from {@code shop.gateway.*} at random, or from {@link #script} for tests and
 * demonstrations: each charge of a new payment number takes the next scripted behaviour first.
 */
@Component
public class FakeGateway {

  private final ShopProperties.Gateway settings;
  private final GatewayBook book;
  private final CallbackSender callbacks;
  private final Queue<Behaviour> script = new ConcurrentLinkedQueue<>();
  private final Queue<GatewayHold> holds = new ConcurrentLinkedQueue<>();

  FakeGateway(ShopProperties properties, GatewayBook book, CallbackSender callbacks) {
    this.settings = properties.gateway();
    this.book = book;
    this.callbacks = callbacks;
  }

  /**
   * Holds the next charge at the gateway until the returned hold is released: for tests and
   * demonstrations of a request caught in flight. The charge is recorded before it waits, so its
   * outcome is fixed and a query (a callback's) finds it; only the answer is held.
   */
  public GatewayHold holdNextCharge() {
    GatewayHold hold = new GatewayHold();
    holds.add(hold);
    return hold;
  }

  /**
   * Drops the holds no charge has reached yet, released, so that one left behind (a test that
   * failed before its charge came) does not hold a later charge.
   */
  public void dropPendingHolds() {
    for (GatewayHold hold = holds.poll(); hold != null; hold = holds.poll()) {
      hold.release();
    }
  }

  /** Queues behaviours for the next charges of new payment numbers, in order. */
  public void script(Behaviour... next) {
    script.addAll(List.of(next));
  }

  /**
   * Charges the payment once per Idempotency-Key, as Stripe does: a repeat of the key gets the
   * first outcome and moves no money; another key is another charge, whatever payment it names.
   *
   * @throws GatewayTimeoutException when the answer is lost (the charge may have happened)
   * @throws GatewayKeyReuseException when the key came before with another charge
   */
  public GatewayOutcome charge(String key, String paymentNo, String orderNo, BigDecimal amount) {
    pause(settings.latency());
    // A script is for new charges: a repeat of a key (a retry, the completer's run) must not take
    // the behaviour queued for the next payment.
    Behaviour behaviour = book.byKey(key).isPresent() ? random() : next();
    GatewayOutcome wanted = behaviour.decline() ? GatewayOutcome.DECLINED : GatewayOutcome.APPROVED;
    GatewayBook.Recorded recorded = book.record(key, paymentNo, orderNo, amount, wanted);
    if (!recorded.sameCharge()) {
      throw new GatewayKeyReuseException(key);
    }
    GatewayOutcome held = recorded.outcome();
    // Held after recording: a callback meanwhile finds the charge's outcome.
    GatewayHold hold = holds.poll();
    if (hold != null) {
      hold.hold();
    }
    if (recorded.fresh()) {
      switch (behaviour.callback()) {
        case BEFORE_ANSWER -> callbacks.sendNow(paymentNo, held, behaviour.repeats());
        case AFTER_ANSWER -> callbacks.sendLater(paymentNo, held, behaviour.repeats());
        case NONE -> {}
      }
    }
    if (behaviour.timeout()) {
      pause(settings.timeout());
      throw new GatewayTimeoutException(paymentNo);
    }
    return held;
  }

  /** The merchant's query: the outcome recorded for the payment number, if any. */
  public Optional<GatewayOutcome> query(String paymentNo) {
    return book.ofPayment(paymentNo);
  }

  /**
   * How many callbacks for the payment number have been sent and answered (any status) since start.
   * The fake keeps one counter per payment number it called back about.
   */
  public long callbacksAnswered(String paymentNo) {
    return callbacks.answered(paymentNo);
  }

  private Behaviour next() {
    Behaviour scripted = script.poll();
    return scripted != null ? scripted : random();
  }

  private Behaviour random() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    return new Behaviour(
        random.nextDouble() < settings.failureRate(),
        random.nextDouble() < settings.timeoutRate(),
        settings.callbacks() ? Behaviour.Callback.AFTER_ANSWER : Behaviour.Callback.NONE,
        settings.callbackRepeats());
  }

  private static void pause(Duration duration) {
    if (duration.isZero() || duration.isNegative()) {
      return;
    }
    try {
      Thread.sleep(duration.toMillis()); // simulated network time, not a wait for a condition
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
