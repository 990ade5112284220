package dev.idem.spring.web;

import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;

/** The WebFlux conformance suite on the in-memory store. */
class MemoryWebFluxConformanceTest extends WebFluxConformanceTests {

  @Override
  Class<? extends IdempotencyStore> expectedStore() {
    return InMemoryIdempotencyStore.class;
  }
}
