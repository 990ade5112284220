package dev.idem.shop;

import jakarta.servlet.http.HttpServletResponse;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.security.authentication.ProviderManager;
import org.springframework.security.authentication.dao.DaoAuthenticationProvider;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * HTTP Basic for the API, stateless (no session, so no CSRF token to carry); the page, its scripts,
 * the catalogue ({@code GET /api/products}) and the gateway's callback (which checks its own shared
 * secret) are open. Credentials sent to an open path are still checked: wrong ones get 401. A
 * password is checked by its encoder once per user and then recognised from {@link
 * VerifiedCredentials} for a few minutes, so a client that sends Basic on every request does not
 * pay a password hash each time.
 */
@Configuration
class SecurityConfig {

  @Bean
  SecurityFilterChain api(HttpSecurity http, UserDetailsService users) throws Exception {
    DaoAuthenticationProvider passwords = new DaoAuthenticationProvider(users);
    passwords.setPasswordEncoder(PasswordEncoderFactories.createDelegatingPasswordEncoder());
    // No password upgrade service: Spring Security would rehash the {noop} demo passwords with
    // BCrypt after the first login and then pay a BCrypt check on every request.
    return http.authenticationManager(
            new ProviderManager(new VerifiedCredentials(passwords, Clock.systemUTC())))
        .csrf(csrf -> csrf.disable())
        .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
        .authorizeHttpRequests(
            auth ->
                auth.requestMatchers("/api/payments/notify", "/gateway/charges")
                    .permitAll()
                    .requestMatchers(HttpMethod.GET, "/api/products")
                    .permitAll()
                    .requestMatchers("/api/**", "/mcp", "/mcp/**")
                    .authenticated()
                    .anyRequest()
                    .permitAll())
        .httpBasic(basic -> basic.authenticationEntryPoint(SecurityConfig::unauthorized))
        .headers(Customizer.withDefaults())
        .build();
  }

  @Bean
  UserDetailsService users(ShopProperties properties) {
    return new InMemoryUserDetailsManager(users(properties.users()));
  }

  /**
   * The configured users, with plain passwords from properties (a demo: a real shop stores hashes).
   *
   * @throws IllegalStateException when there is none (profile services has no demo users) or one
   *     has no password
   */
  static List<UserDetails> users(Map<String, ShopProperties.User> configured) {
    if (configured.isEmpty()) {
      throw new IllegalStateException(
          "no users: profile services has no demo users; give each user a password with"
              + " shop.users.<name>.password (or SHOP_USERS_<NAME>_PASSWORD), and optionally"
              + " .balance and .roles");
    }
    List<UserDetails> users = new ArrayList<>();
    configured.forEach(
        (name, user) -> {
          if (user.password() == null || user.password().isBlank()) {
            throw new IllegalStateException(
                "shop.users." + name + ".password is empty: give the user a password");
          }
          users.add(
              User.withUsername(name)
                  .password("{noop}" + user.password())
                  .roles(user.roles().toArray(String[]::new))
                  .build());
        });
    return users;
  }

  private static void unauthorized(
      jakarta.servlet.http.HttpServletRequest request,
      HttpServletResponse response,
      org.springframework.security.core.AuthenticationException e)
      throws java.io.IOException {
    // The page sends X-Requested-With; leaving out the challenge keeps the browser's own
    // login dialog from popping up over it.
    if (request.getHeader("X-Requested-With") == null) {
      response.setHeader("WWW-Authenticate", "Basic realm=\"shop\"");
    }
    response.setStatus(HttpServletResponse.SC_UNAUTHORIZED);
    response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
    response
        .getWriter()
        .write(
            "{\"type\":\"urn:shop:problem:unauthorized\",\"title\":\"Unauthorized\","
                + "\"status\":401,\"detail\":\"log in with HTTP Basic\"}");
  }
}
