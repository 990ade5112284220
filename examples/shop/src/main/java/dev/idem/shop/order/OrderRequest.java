package dev.idem.shop.order;

import com.fasterxml.jackson.annotation.JsonIgnore;
import jakarta.validation.Valid;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The body of {@code POST /api/orders}. Its constraints are checked by Spring before the handler
 * runs, so a refused body stores nothing under its idempotency key and a corrected retry with the
 * same key goes through.
 *
 * @param orderNo optional order number chosen by the client (1 to 64 letters, digits, '-' or '_');
 *     the server derives one from the caller and the idempotency key when it is absent
 * @param items what to buy, each SKU once
 */
public record OrderRequest(
    @Pattern(regexp = "[A-Za-z0-9_-]{1,64}", message = "must be 1 to 64 letters, digits, - or _")
        String orderNo,
    @NotEmpty(message = "an order needs at least one item") List<@NotNull @Valid Line> items) {

  /** The largest quantity of one line. */
  public static final int MAX_QUANTITY = 1000;

  /** True when no SKU appears twice (null lines and SKUs are reported by their own checks). */
  @JsonIgnore
  @AssertTrue(message = "each sku at most once")
  public boolean isEachSkuOnce() {
    if (items == null) {
      return true;
    }
    Set<String> seen = new HashSet<>();
    return items.stream()
        .filter(Objects::nonNull)
        .map(Line::sku)
        .filter(Objects::nonNull)
        .allMatch(seen::add);
  }

  /** One line of the order: a SKU of the catalogue and a quantity from 1 to 1000. */
  public record Line(
      @NotBlank @KnownProduct String sku, @NotNull @Min(1) @Max(MAX_QUANTITY) Integer quantity) {}
}
