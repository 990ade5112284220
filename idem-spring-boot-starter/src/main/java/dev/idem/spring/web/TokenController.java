package dev.idem.spring.web;

import dev.idem.core.IdempotencyException;
import dev.idem.core.TokenService;
import dev.idem.spring.web.internal.ServletAnswers;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST ${idem.http.token-path}} (default {@code /api/tokens}): issues a one-shot token for
 * the caller, answered as {@code 201 {"token":"..."}}. The client sends it back in {@code
 * X-Idempotent-Token} on one protected request; a forged, unknown or expired token gets 400 {@code
 * unknown-token}. Tokens belong to the caller that asked for them.
 */
@RestController
public class TokenController {

  private final TokenService tokens;
  private final IdempotencyScopeResolver scopes;

  public TokenController(TokenService tokens, IdempotencyScopeResolver scopes) {
    this.tokens = tokens;
    this.scopes = scopes;
  }

  /** Issues a token; 503 {@code store-unavailable} when the store is down. */
  @PostMapping("${idem.http.token-path:/api/tokens}")
  public void issue(HttpServletRequest request, HttpServletResponse response) throws IOException {
    String token;
    try {
      token = tokens.issue(TokenService.scopeFor(scopes.resolve(request)));
    } catch (IdempotencyException e) {
      ServletAnswers.write(response, e);
      return;
    }
    // a token is 22 URL-safe characters: nothing in it needs escaping
    byte[] body = ("{\"token\":\"" + token + "\"}").getBytes(StandardCharsets.UTF_8);
    response.setStatus(HttpServletResponse.SC_CREATED);
    response.setContentType("application/json");
    response.setContentLength(body.length);
    response.getOutputStream().write(body);
  }
}
