package dev.idem.shop.payment;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import org.springframework.core.env.Environment;
import org.springframework.core.env.Profiles;

/**
 * The secret the gateway's callback carries in {@code X-Gateway-Secret}. The demo value of the
 * embedded default is refused when profile {@code services} is active, and an empty one always, so
 * that a deployment cannot run with a secret printed in the docs.
 */
public final class GatewaySecret {

  /** The embedded default's demo secret (application.yml). */
  static final String DEMO = "change-me-gateway-secret";

  private final byte[] secret;

  private GatewaySecret(String secret) {
    this.secret = secret.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The configured secret, checked against the active profiles.
   *
   * @throws IllegalStateException when it is empty, or the demo secret under profile services
   */
  public static GatewaySecret of(String configured, Environment environment) {
    if (configured == null || configured.isBlank()) {
      throw new IllegalStateException(
          "shop.gateway.secret (SHOP_GATEWAY_SECRET) is empty: set the gateway's shared secret");
    }
    if (DEMO.equals(configured) && environment.acceptsProfiles(Profiles.of("services"))) {
      throw new IllegalStateException(
          "shop.gateway.secret is the demo secret; profile services needs its own"
              + " (SHOP_GATEWAY_SECRET)");
    }
    return new GatewaySecret(configured);
  }

  /** Whether {@code sent} is the secret, compared in constant time. */
  public boolean matches(String sent) {
    return sent != null && MessageDigest.isEqual(secret, sent.getBytes(StandardCharsets.UTF_8));
  }
}
