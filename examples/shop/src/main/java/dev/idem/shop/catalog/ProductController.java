package dev.idem.shop.catalog;

import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@code GET /api/products}. */
@RestController
class ProductController {

  private final ProductRepository products;

  ProductController(ProductRepository products) {
    this.products = products;
  }

  @GetMapping("/api/products")
  List<Product> products() {
    return products.all();
  }
}
