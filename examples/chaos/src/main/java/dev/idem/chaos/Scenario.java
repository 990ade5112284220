package dev.idem.chaos;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * One chaos run, as read from a scenario file by {@link ScenarioParser}: the load, the shops it
 * drives and the faults injected while it runs. Validated on construction by the parser, so every
 * instance is runnable.
 *
 * @param name a short name, used for the report's section and chart files
 * @param description what the scenario shows, and any known finding it documents
 * @param backend where the shops keep their data
 * @param instances how many shop processes share the backend (1 for {@link Backend#EMBEDDED})
 * @param users how many virtual users (each a shop user of its own) send requests
 * @param duration how long the load runs; {@link Duration#ZERO} when {@code requests} bounds it
 * @param requests how many operations the users start in all; 0 when {@code duration} bounds it
 * @param load the rate the load runs at: a share of the capacity measured first, or as fast as the
 *     users go
 * @param duplicates how often and how a request is sent again with the same key
 * @param mix the relative weights of the operations
 * @param shop extra shop properties for every instance ({@code shop.gateway.timeout-rate: 0.5})
 * @param faults what happens to the shops and their servers, and when
 */
public record Scenario(
    String name,
    String description,
    Backend backend,
    int instances,
    int users,
    Duration duration,
    long requests,
    Load load,
    Duplicates duplicates,
    Mix mix,
    Map<String, String> shop,
    List<Fault> faults) {

  public Scenario {
    shop = Map.copyOf(shop);
    faults = List.copyOf(faults);
  }

  /** Where the shops keep their data. */
  public enum Backend {
    /** The shop's embedded default: H2 in memory, in-memory store; one instance, no servers. */
    EMBEDDED,
    /**
     * Profile {@code services}: a PostgreSQL database of the tool's own, a private Redis and
     * RabbitMQ, shared by every instance.
     */
    SERVICES
  }

  /**
   * The rate of the load. With a {@code capacity} window, the users first run as fast as they can
   * for {@code warmup} and then for the window, without faults (their operations are checked like
   * the rest); the operations per second they reached in the window are the capacity, and the load
   * then runs at {@code share} of it, each user starting its operations on a schedule of its own. A
   * user behind its schedule starts at once, so a load that cannot keep its rate shows it in the
   * rate reached. Without a window the users go as fast as they can for the whole load.
   *
   * @param warmup how long the users run flat out before the window, so that it measures shops
   *     whose code is compiled and whose pools are full rather than shops just started
   * @param capacity how long the capacity is measured; {@link Duration#ZERO} for no target rate
   * @param share the share of the capacity the load runs at (above 0, at most 1)
   */
  public record Load(Duration warmup, Duration capacity, double share) {

    /** As fast as the users go, no capacity measured. */
    public static final Load FLAT_OUT = new Load(Duration.ZERO, Duration.ZERO, 1);

    /** Whether the load runs at a target rate. */
    public boolean paced() {
      return !capacity.isZero();
    }
  }

  /**
   * How requests are repeated with the same key.
   *
   * @param rate share of operations sent more than once (0 to 1)
   * @param concurrent share of those whose copy goes out at the same time, to another instance when
   *     there is one; the others are sent again after the first answer
   * @param maxDelay the longest pause before a repeat sent after the first answer
   * @param otherKey share of duplicated payments whose copy goes out at the same time under a key
   *     of its own, as two clicks that each made a key: still one payment per order
   */
  public record Duplicates(double rate, double concurrent, Duration maxDelay, double otherKey) {}

  /**
   * Relative weights of the operations; only their ratios matter.
   *
   * @param orders {@code POST /api/orders}
   * @param card {@code POST /api/orders/{orderNo}/payments} by {@code CARD}
   * @param wallet the same by {@code WALLET}
   * @param callbacks {@code POST /api/payments/notify} for a card payment the tool has seen
   */
  public record Mix(double orders, double card, double wallet, double callbacks) {

    double total() {
      return orders + card + wallet + callbacks;
    }
  }

  /**
   * One fault.
   *
   * @param at when, from the start of the load
   * @param action what
   * @param instance which shop instance (1-based) for {@link FaultAction#KILL}, {@link
   *     FaultAction#RESTART} and {@link FaultAction#PARTITION}; 0 otherwise
   * @param latency the added delay for the latency faults; {@link Duration#ZERO} otherwise
   */
  public record Fault(Duration at, FaultAction action, int instance, Duration latency) {

    /** A label for charts and logs. */
    public String label() {
      String what = action.fileName();
      if (instance > 0) {
        what += " #" + instance;
      }
      if (!latency.isZero()) {
        what += " " + latency.toMillis() + "ms";
      }
      return what;
    }
  }
}
