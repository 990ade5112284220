package dev.idem.shop;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Everything under {@code shop.*}: demo users, the fake gateway, the jobs and the wallet path.
 *
 * @param users demo users by name, each with a password and a starting wallet balance
 * @param gateway how the fake third-party gateway behaves
 * @param reconcile the reconciliation job for payments left in PROCESSING
 * @param outbox the outbox relay
 * @param wallet how WALLET payments deduct the balance
 */
@ConfigurationProperties("shop")
public record ShopProperties(
    Map<String, User> users,
    @DefaultValue Gateway gateway,
    @DefaultValue Reconcile reconcile,
    @DefaultValue Outbox outbox,
    @DefaultValue Wallet wallet) {

  public ShopProperties {
    users = users == null ? Map.of() : Map.copyOf(users);
  }

  /** A demo user: password and starting balance. */
  public record User(String password, @DefaultValue("500.00") BigDecimal balance) {}

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
   * @param secret the shared secret the callback carries in {@code X-Gateway-Secret}
   * @param callbackUrl where callbacks go; empty means this application's own notify endpoint
   */
  public record Gateway(
      @DefaultValue("100ms") Duration latency,
      @DefaultValue("0.1") double failureRate,
      @DefaultValue("0.1") double timeoutRate,
      @DefaultValue("1s") Duration timeout,
      @DefaultValue("true") boolean callbacks,
      @DefaultValue("500ms") Duration callbackDelay,
      @DefaultValue("2") int callbackRepeats,
      @DefaultValue("change-me-gateway-secret") String secret,
      @DefaultValue("") String callbackUrl) {}

  /**
   * The reconciliation job.
   *
   * @param interval pause between runs
   * @param olderThan only payments in PROCESSING for longer than this are asked about
   */
  public record Reconcile(
      @DefaultValue("10s") Duration interval, @DefaultValue("30s") Duration olderThan) {}

  /**
   * The outbox relay.
   *
   * @param interval pause between polls
   */
  public record Outbox(@DefaultValue("200ms") Duration interval) {}

  /**
   * The wallet.
   *
   * @param mode {@code versioned}: read balance and version, write at that version, retry with
   *     backoff on a lost race (the article's optimistic lock); {@code conditional}: one {@code
   *     UPDATE ... WHERE balance >= amount}, no read and no retry
   */
  public record Wallet(@DefaultValue("versioned") String mode) {}
}
