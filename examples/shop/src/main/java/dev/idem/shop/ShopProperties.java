package dev.idem.shop;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Everything under {@code shop.*}: demo users, the fake gateway, the jobs and the wallet path.
 *
 * @param users demo users by name, each with a password and a starting wallet balance
 * @param gateway how the fake third-party gateway behaves
 * @param messaging the retry of event publications that did not complete
 * @param wallet how WALLET payments deduct the balance
 * @param audit the audit's deadlines
 * @param catalog the demo catalogue's starting stock
 */
@ConfigurationProperties("shop")
public record ShopProperties(
    Map<String, User> users,
    @DefaultValue Gateway gateway,
    @DefaultValue Messaging messaging,
    @DefaultValue Wallet wallet,
    @DefaultValue Audit audit,
    @DefaultValue Catalog catalog) {

  public ShopProperties {
    users = users == null ? Map.of() : Map.copyOf(users);
  }

  /**
   * A demo user.
   *
   * @param password the plain password (a demo: a real shop stores hashes)
   * @param balance the starting wallet balance
   * @param roles Spring Security roles: {@code CUSTOMER}, or {@code ADMIN} to see the audit's rows
   */
  public record User(
      String password,
      @DefaultValue("500.00") BigDecimal balance,
      @DefaultValue("CUSTOMER") List<String> roles) {

    public User {
      roles = List.copyOf(roles);
    }
  }

  /**
   * The fake gateway.
   *
   * @param latency how long a charge takes before it answers
   * @param failureRate share of charges declined (0 to 1)
   * @param timeoutRate share of charges whose answer is lost: the charge happens, the caller gets a
   *     timeout and does not know
   * @param timeout how long the caller waits before it gives up on a lost answer
   * @param callbacks whether the gateway calls {@code /api/payments/notify}
   * @param callbackDelay how long after the charge the callback is sent
   * @param callbackRepeats how many times each callback is sent
   * @param secret the shared secret the callback carries in {@code X-Gateway-Secret}; required, and
   *     the demo value {@code change-me-gateway-secret} of the embedded default is refused under
   *     profile {@code services}
   * @param callbackUrl where callbacks go; empty means this application's own notify endpoint
   * @param url where the shop sends its charges; empty means this application's own {@code
   *     /gateway/charges}
   * @param maxConcurrentCharges how many charges of this instance may wait for the gateway at once;
   *     one more is refused with 503 {@code gateway-busy} (the gateway is served on this
   *     application's own threads, which a burst of payments must not take all of)
   */
  public record Gateway(
      @DefaultValue("100ms") Duration latency,
      @DefaultValue("0.1") double failureRate,
      @DefaultValue("0.1") double timeoutRate,
      @DefaultValue("1s") Duration timeout,
      @DefaultValue("true") boolean callbacks,
      @DefaultValue("500ms") Duration callbackDelay,
      @DefaultValue("2") int callbackRepeats,
      @DefaultValue("") String secret,
      @DefaultValue("") String callbackUrl,
      @DefaultValue("") String url,
      @DefaultValue("64") int maxConcurrentCharges) {

    public Gateway {
      if (maxConcurrentCharges < 1) {
        throw new IllegalArgumentException(
            "shop.gateway.max-concurrent-charges must be at least 1, was " + maxConcurrentCharges);
      }
    }
  }

  /**
   * The retry of event publications whose listener failed or whose process died (Spring Modulith's
   * registry keeps them incomplete).
   *
   * @param resubmitInterval pause between retries
   * @param resubmitOlderThan only publications older than this are resubmitted, so that one still
   *     on its first delivery is left to it
   */
  public record Messaging(
      @DefaultValue("5s") Duration resubmitInterval,
      @DefaultValue("10s") Duration resubmitOlderThan) {}

  /**
   * The wallet.
   *
   * @param mode how a WALLET payment deducts the balance (see {@link Mode})
   */
  public record Wallet(@DefaultValue("versioned") Mode mode) {

    /** How the wallet is debited; the property takes the lower-case names. */
    public enum Mode {
      /**
       * Read balance and version, write at that version, retry with backoff on a lost race (the
       * article's optimistic lock), in the payment's transaction.
       */
      VERSIONED,
      /** One {@code UPDATE ... WHERE balance >= amount}, no read and no retry. */
      CONDITIONAL,
      /** Core's hot-account executor: concurrent debits of one wallet applied as one batch. */
      COALESCE,
      /** Core's hot-account executor: debits of one wallet applied one at a time. */
      SERIALIZE;

      /** Whether the debit goes through the hot-account executor, in a transaction of its own. */
      public boolean hot() {
        return this == COALESCE || this == SERIALIZE;
      }
    }
  }

  /**
   * The audit.
   *
   * @param pointsWithin how long after its payment an order may wait for its loyalty points before
   *     the missing points count as a lost event
   */
  public record Audit(@DefaultValue("5m") Duration pointsWithin) {}

  /**
   * The demo catalogue.
   *
   * @param stock starting stock by SKU, in place of the demo's (a load run needs more than a person
   *     clicking); only applied when the product is first added
   */
  public record Catalog(Map<String, Integer> stock) {

    public Catalog {
      stock = stock == null ? Map.of() : Map.copyOf(stock);
    }

    /** The starting stock of {@code sku}, or {@code fallback} when none is configured. */
    public int stockOf(String sku, int fallback) {
      return stock.getOrDefault(sku, fallback);
    }
  }
}
