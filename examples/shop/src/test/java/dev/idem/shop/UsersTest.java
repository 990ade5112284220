package dev.idem.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.core.userdetails.UserDetails;

/** Who can log in: the demo users in the embedded default, only given users under services. */
class UsersTest {

  @Configuration
  @EnableConfigurationProperties(ShopProperties.class)
  static class Properties {}

  @Test
  void theEmbeddedDefaultHasTheDemoUsers() {
    assertThat(users()).containsOnlyKeys("alice", "bob", "admin");
    assertThat(SecurityConfig.users(users()))
        .extracting(UserDetails::getUsername)
        .containsExactlyInAnyOrder("alice", "bob", "admin");
  }

  @Test
  void profileServicesHasNoDemoUsersAndDoesNotStartWithoutUsers() {
    assertThat(users("--spring.profiles.active=services,mariadb")).isEmpty();
    assertThatThrownBy(() -> SecurityConfig.users(users("--spring.profiles.active=services")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("shop.users.<name>.password")
        .hasMessageContaining("SHOP_USERS_<NAME>_PASSWORD");
  }

  @Test
  void usersGivenToProfileServicesAreTheOnlyOnes() {
    Map<String, ShopProperties.User> users =
        users(
            "--spring.profiles.active=services",
            "--shop.users.carol.password=from-the-vault",
            "--shop.users.carol.roles=ADMIN");

    assertThat(users).containsOnlyKeys("carol");
    assertThat(SecurityConfig.users(users).get(0).getAuthorities())
        .extracting(Object::toString)
        .containsExactly("ROLE_ADMIN");
  }

  @Test
  void aUserWithoutAPasswordIsRefused() {
    assertThatThrownBy(
            () ->
                SecurityConfig.users(
                    users("--spring.profiles.active=services", "--shop.users.carol.balance=5")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("shop.users.carol.password is empty");
  }

  private static Map<String, ShopProperties.User> users(String... args) {
    try (ConfigurableApplicationContext context =
        new SpringApplicationBuilder(Properties.class)
            .web(WebApplicationType.NONE)
            .bannerMode(Banner.Mode.OFF)
            .logStartupInfo(false)
            .run(args)) {
      return context.getBean(ShopProperties.class).users();
    }
  }
}
