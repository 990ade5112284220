package dev.idem.shop.payment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.springframework.core.env.StandardEnvironment;

class GatewaySecretTest {

  @Test
  void theDemoSecretIsRefusedUnderProfileServices() {
    StandardEnvironment services = new StandardEnvironment();
    services.setActiveProfiles("services", "mariadb");

    assertThatThrownBy(() -> GatewaySecret.of(GatewaySecret.DEMO, services))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("SHOP_GATEWAY_SECRET");
  }

  @Test
  void theDemoSecretServesTheEmbeddedDefault() {
    GatewaySecret secret = GatewaySecret.of(GatewaySecret.DEMO, new StandardEnvironment());

    assertThat(secret.matches(GatewaySecret.DEMO)).isTrue();
    assertThat(secret.matches("change-me")).isFalse();
    assertThat(secret.matches(null)).isFalse();
  }

  @Test
  void anEmptySecretIsRefusedEverywhere() {
    assertThatThrownBy(() -> GatewaySecret.of("", new StandardEnvironment()))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> GatewaySecret.of(null, new StandardEnvironment()))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void anOwnSecretIsAcceptedUnderProfileServices() {
    StandardEnvironment services = new StandardEnvironment();
    services.setActiveProfiles("services");

    assertThat(GatewaySecret.of("s3cret-from-the-vault", services).matches("s3cret-from-the-vault"))
        .isTrue();
  }
}
