package dev.idem.shop;

import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.TestPropertySource;

/** {@link PaymentsTest} with the wallet on core's hot-account executor, coalescing. */
@TestPropertySource(properties = "shop.wallet.mode=coalesce")
@DirtiesContext
class PaymentsCoalesceTest extends PaymentsTest {}
