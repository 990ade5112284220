package dev.idem.shop.catalog;

import dev.idem.shop.ShopProperties;
import dev.idem.shop.wallet.AccountRepository;
import java.math.BigDecimal;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/** Seeds the products and one wallet per demo user at start, leaving existing rows alone. */
@Component
class DemoData implements ApplicationRunner {

  private final ProductRepository products;
  private final AccountRepository accounts;
  private final ShopProperties properties;

  DemoData(ProductRepository products, AccountRepository accounts, ShopProperties properties) {
    this.products = products;
    this.accounts = accounts;
    this.properties = properties;
  }

  @Override
  public void run(ApplicationArguments args) {
    ShopProperties.Catalog catalog = properties.catalog();
    products.addIfMissing(
        "BOOK", "Idempotence, the book", new BigDecimal("25.00"), catalog.stockOf("BOOK", 100));
    products.addIfMissing(
        "MUG", "Mug: once is enough", new BigDecimal("9.50"), catalog.stockOf("MUG", 50));
    products.addIfMissing(
        "TSHIRT", "T-shirt 409 Conflict", new BigDecimal("19.00"), catalog.stockOf("TSHIRT", 20));
    products.addIfMissing(
        "STICKER", "Sticker pack", new BigDecimal("2.00"), catalog.stockOf("STICKER", 500));
    properties.users().forEach((name, user) -> accounts.addIfMissing(name, user.balance()));
  }
}
