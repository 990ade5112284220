package dev.idem.shop.gateway;

import dev.idem.shop.ShopProperties;
import dev.idem.shop.internal.OwnServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/** Sends the gateway's callbacks to {@code POST /api/payments/notify} over real HTTP. */
@Component
class CallbackSender implements DisposableBean {

  private static final Logger log = LoggerFactory.getLogger(CallbackSender.class);

  private final Map<String, AtomicLong> answered = new ConcurrentHashMap<>();
  private final ShopProperties.Gateway settings;
  private final Environment environment;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final ScheduledExecutorService later =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "gateway-callbacks");
            t.setDaemon(true);
            return t;
          });

  CallbackSender(ShopProperties properties, Environment environment) {
    this.settings = properties.gateway();
    this.environment = environment;
  }

  /** Sends the callback now, {@code times} times, and returns when all were answered. */
  void sendNow(String paymentNo, GatewayOutcome outcome, int times) {
    for (int i = 0; i < times; i++) {
      send(paymentNo, outcome);
    }
  }

  /** Sends the callback {@code times} times after the configured delay. */
  void sendLater(String paymentNo, GatewayOutcome outcome, int times) {
    long delay = settings.callbackDelay().toMillis();
    later.schedule(() -> sendNow(paymentNo, outcome, times), delay, TimeUnit.MILLISECONDS);
  }

  private void send(String paymentNo, GatewayOutcome outcome) {
    String status = outcome == GatewayOutcome.APPROVED ? "SUCCESS" : "FAILED";
    String body = "{\"paymentNo\":\"" + paymentNo + "\",\"status\":\"" + status + "\"}";
    HttpRequest request =
        HttpRequest.newBuilder(target())
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/json")
            .header("X-Gateway-Secret", settings.secret())
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    try {
      HttpResponse<String> answer = http.send(request, HttpResponse.BodyHandlers.ofString());
      answered.computeIfAbsent(paymentNo, p -> new AtomicLong()).incrementAndGet();
      log.debug("callback {} {} answered {}", paymentNo, status, answer.statusCode());
    } catch (IOException e) {
      // A real gateway retries later; the payment's flow settles without the callback anyway.
      log.warn("callback for {} failed: {}", paymentNo, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** How many callbacks for the payment number the shop has answered so far. */
  long answered(String paymentNo) {
    AtomicLong n = answered.get(paymentNo);
    return n == null ? 0 : n.get();
  }

  private URI target() {
    return OwnServer.uri(settings.callbackUrl(), environment, "/api/payments/notify");
  }

  @Override
  public void destroy() {
    later.shutdownNow();
  }
}
