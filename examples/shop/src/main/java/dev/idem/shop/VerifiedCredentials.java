package dev.idem.shop;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;

/**
 * Checks a user's password with the slow password encoder once, then, for {@link #TTL}, accepts the
 * same user and password from a keyed digest kept in memory, so that an API client sending HTTP
 * Basic on every request costs one hash per user, not one per request. The digest is an HMAC with a
 * key drawn at start-up and never stored; only successful logins are kept, a wrong password always
 * reaches the encoder, and the table holds at most {@link #MAX_USERS} users.
 */
final class VerifiedCredentials implements AuthenticationProvider {

  static final Duration TTL = Duration.ofMinutes(5);
  static final int MAX_USERS = 10_000;

  private final AuthenticationProvider passwords;
  private final Clock clock;
  private final SecretKeySpec key;
  private final Map<String, Verified> verified = new ConcurrentHashMap<>();

  VerifiedCredentials(AuthenticationProvider passwords, Clock clock) {
    this.passwords = passwords;
    this.clock = clock;
    byte[] secret = new byte[32];
    new SecureRandom().nextBytes(secret);
    this.key = new SecretKeySpec(secret, "HmacSHA256");
  }

  private record Verified(byte[] digest, Authentication result, Instant until) {}

  @Override
  public Authentication authenticate(Authentication login) {
    String name = login.getName();
    Object credentials = login.getCredentials();
    if (name == null || credentials == null) {
      return passwords.authenticate(login);
    }
    byte[] digest = digest(name, credentials.toString());
    Instant now = clock.instant();
    Verified known = verified.get(name);
    if (known != null
        && now.isBefore(known.until())
        && MessageDigest.isEqual(known.digest(), digest)) {
      return known.result();
    }
    Authentication result = passwords.authenticate(login);
    if (result != null && result.isAuthenticated()) {
      if (verified.size() >= MAX_USERS) {
        verified.values().removeIf(v -> !now.isBefore(v.until()));
      }
      if (verified.size() < MAX_USERS) {
        verified.put(name, new Verified(digest, result, now.plus(TTL)));
      }
    }
    return result;
  }

  @Override
  public boolean supports(Class<?> authentication) {
    return UsernamePasswordAuthenticationToken.class.isAssignableFrom(authentication);
  }

  private byte[] digest(String name, String password) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(key);
      mac.update(name.getBytes(StandardCharsets.UTF_8));
      mac.update((byte) 0);
      return mac.doFinal(password.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("every Java runtime has HmacSHA256", e);
    }
  }
}
