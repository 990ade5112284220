package dev.idem.shop;

import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.TestPropertySource;

/** {@link PaymentsTest} with the wallet on core's hot-account executor, one debit at a time. */
@TestPropertySource(properties = "shop.wallet.mode=serialize")
@DirtiesContext
class PaymentsSerializeTest extends PaymentsTest {}
