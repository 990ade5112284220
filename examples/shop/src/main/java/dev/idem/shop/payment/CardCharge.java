package dev.idem.shop.payment;

import dev.idem.shop.ShopProperties;
import dev.idem.shop.gateway.GatewayOutcome;
import dev.idem.shop.gateway.GatewayTimeoutException;
import dev.idem.shop.internal.OwnServer;
import dev.idem.spring.Idempotent;
import dev.idem.spring.client.IdempotentRetries;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpStatus;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.stereotype.Component;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;

/**
 * The card charge as a step of the payment's flow: {@code @Idempotent} without a key, so its
 * outcome is stored under the flow's call the moment the gateway answers, and a rerun of the flow
 * (a client's retry, the completer) gets that outcome back instead of charging again. Its lease is
 * the flow's: a run that died inside the charge holds the step until then, and the rerun waits for
 * it.
 *
 * <p>The gateway is called over HTTP ({@code POST /gateway/charges}) through {@link
 * IdempotentRetries}, which sends, for a call made inside a step, a key derived from the flow's key
 * and request, the step and the call's method and path: the same on every run, so a charge a crash
 * interrupted (the answer never stored) is deduplicated by the gateway when the rerun asks again. A
 * lost answer (a 504, or an I/O failure after the request went out) stores nothing and fails the
 * flow with {@link GatewayTimeoutException}; the rerun asks again under the same key.
 */
@Component
class CardCharge {

  /** The step's name, and so the name of its policy and meters. */
  static final String OPERATION = "card-charge";

  /** What the gateway answers. */
  record Charged(String paymentNo, GatewayOutcome outcome) {}

  private final RestClient gateway;
  private final ShopProperties.Gateway settings;
  private final Environment environment;
  private final PaymentJournal journal;
  private final Semaphore inFlight;

  CardCharge(ShopProperties properties, Environment environment, PaymentJournal journal) {
    this.settings = properties.gateway();
    this.environment = environment;
    this.journal = journal;
    this.inFlight = new Semaphore(settings.maxConcurrentCharges());
    JdkClientHttpRequestFactory requests =
        new JdkClientHttpRequestFactory(
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build());
    requests.setReadTimeout(Duration.ofSeconds(30));
    // The gateway is not named as a server that honours keys: only refusals (429, a 503 or 409
    // with Retry-After) are asked again here; a lost answer is the flow's to retry, from its step.
    this.gateway =
        RestClient.builder()
            .requestFactory(requests)
            .requestInterceptor(IdempotentRetries.builder().build())
            .build();
  }

  /**
   * Charges the payment at the gateway.
   *
   * @param earlierKey the key a payment the previous version left PROCESSING was charged under (its
   *     payment number), sent in place of the step's; null for any other payment
   */
  @Idempotent(operation = OPERATION)
  public GatewayOutcome charge(
      String paymentNo, String orderNo, BigDecimal amount, @Nullable String earlierKey) {
    if (!enter()) {
      journal.write(paymentNo, "charge: not sent, too many charges in flight; nothing stored");
      throw new GatewayBusyException(paymentNo);
    }
    try {
      GatewayOutcome outcome = send(paymentNo, orderNo, amount, earlierKey);
      journal.write(
          paymentNo, "charge: the gateway answered " + outcome + "; stored as the step's");
      return outcome;
    } catch (GatewayTimeoutException e) {
      journal.write(paymentNo, "charge: the gateway's answer was lost; the step stored nothing");
      throw e;
    } finally {
      inFlight.release();
    }
  }

  // A short wait for a place among the charges in flight: a burst waits a little, not a thread's
  // life.
  private boolean enter() {
    try {
      return inFlight.tryAcquire(1, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private GatewayOutcome send(
      String paymentNo, String orderNo, BigDecimal amount, @Nullable String earlierKey) {
    Charged charged;
    try {
      charged =
          gateway
              .post()
              .uri(target())
              .header("X-Gateway-Secret", settings.secret())
              // a key of the caller's own is kept by IdempotentRetries; else it derives the step's
              .headers(
                  h -> {
                    if (earlierKey != null) {
                      h.set(IdempotentRetries.HEADER, earlierKey);
                    }
                  })
              .body(Map.of("paymentNo", paymentNo, "orderNo", orderNo, "amount", amount))
              .retrieve()
              .onStatus(
                  status -> status.value() == HttpStatus.GATEWAY_TIMEOUT.value(),
                  (request, response) -> {
                    throw new GatewayTimeoutException(paymentNo);
                  })
              .body(Charged.class);
    } catch (ResourceAccessException e) {
      // sent, and no answer: the outcome is unknown, as for a lost answer
      throw new GatewayTimeoutException(paymentNo);
    }
    if (charged == null || charged.outcome() == null) {
      throw new IllegalStateException("the gateway answered no outcome for " + paymentNo);
    }
    return charged.outcome();
  }

  private URI target() {
    return OwnServer.uri(settings.url(), environment, "/gateway/charges");
  }
}
