package dev.idem.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.testsupport.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.security.authentication.BadCredentialsException;
import org.springframework.security.authentication.ProviderManager;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.authentication.dao.DaoAuthenticationProvider;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;

/** One password check per user and TTL, never one for a wrong password. */
class VerifiedCredentialsTest {

  private final AtomicInteger checks = new AtomicInteger();
  private final MutableClock clock = MutableClock.stoppedAt(Instant.parse("2026-01-01T00:00:00Z"));
  private final ProviderManager logins = new ProviderManager(credentials());

  @Test
  void aUserSendingBasicOnEveryRequestIsCheckedByTheEncoderOnce() {
    for (int i = 0; i < 50; i++) {
      assertThat(logins.authenticate(login("alice", "alice")).isAuthenticated()).isTrue();
    }
    assertThat(checks).hasValue(1);
  }

  @Test
  void aWrongPasswordAlwaysReachesTheEncoderAndIsRefused() {
    logins.authenticate(login("alice", "alice"));
    for (int i = 0; i < 3; i++) {
      assertThatThrownBy(() -> logins.authenticate(login("alice", "guess")))
          .isInstanceOf(BadCredentialsException.class);
    }
    assertThat(checks).hasValue(4);
  }

  @Test
  void theRememberedLoginEndsWithItsTtl() {
    logins.authenticate(login("alice", "alice"));
    clock.advance(VerifiedCredentials.TTL.plus(Duration.ofSeconds(1)));
    logins.authenticate(login("alice", "alice"));
    assertThat(checks).hasValue(2);
  }

  private VerifiedCredentials credentials() {
    UserDetails alice = User.withUsername("alice").password("alice").roles("USER").build();
    DaoAuthenticationProvider passwords =
        new DaoAuthenticationProvider(new InMemoryUserDetailsManager(alice));
    passwords.setPasswordEncoder(
        new PasswordEncoder() {
          @Override
          public String encode(CharSequence raw) {
            return raw.toString();
          }

          @Override
          public boolean matches(CharSequence raw, String encoded) {
            checks.incrementAndGet();
            return raw.toString().equals(encoded);
          }
        });
    return new VerifiedCredentials(passwords, clock);
  }

  private static UsernamePasswordAuthenticationToken login(String name, String password) {
    return UsernamePasswordAuthenticationToken.unauthenticated(name, password);
  }
}
