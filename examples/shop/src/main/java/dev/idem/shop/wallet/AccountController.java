package dev.idem.shop.wallet;

import dev.idem.shop.ShopException;
import java.security.Principal;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@code GET /api/accounts/me}: the caller's balance and its version. */
@RestController
class AccountController {

  private final AccountRepository accounts;

  AccountController(AccountRepository accounts) {
    this.accounts = accounts;
  }

  @GetMapping("/api/accounts/me")
  Account me(Principal principal) {
    return accounts
        .find(principal.getName())
        .orElseThrow(() -> ShopException.notFound("no wallet for " + principal.getName()));
  }
}
