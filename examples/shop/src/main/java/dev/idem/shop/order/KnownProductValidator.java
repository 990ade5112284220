package dev.idem.shop.order;

import dev.idem.shop.catalog.ProductRepository;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;

/** Checks {@link KnownProduct} against the products table; Spring injects the repository. */
class KnownProductValidator implements ConstraintValidator<KnownProduct, String> {

  private final ProductRepository products;

  KnownProductValidator(ProductRepository products) {
    this.products = products;
  }

  @Override
  public boolean isValid(String sku, ConstraintValidatorContext context) {
    return sku == null || sku.isBlank() || products.price(sku).isPresent();
  }
}
