package dev.idem.shop.wallet;

import java.math.BigDecimal;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/** Wallet accounts. */
@Repository
public class AccountRepository {

  private final JdbcTemplate jdbc;

  AccountRepository(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  public Optional<Account> find(String username) {
    return jdbc
        .query(
            "SELECT username, balance, version FROM accounts WHERE username = ?",
            (rs, i) -> new Account(rs.getString(1), rs.getBigDecimal(2), rs.getLong(3)),
            username)
        .stream()
        .findFirst();
  }

  /** Opens a wallet with {@code balance} unless the user has one. */
  public void addIfMissing(String username, BigDecimal balance) {
    if (find(username).isEmpty()) {
      jdbc.update(
          "INSERT INTO accounts (username, initial_balance, balance, version) VALUES (?, ?, ?, 0)",
          username,
          balance,
          balance);
    }
  }
}
