package dev.idem.spring.web;

import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;

/**
 * The HTTP conformance suite on the in-memory store (picked when no DataSource or Redis exists).
 */
class MemoryHttpConformanceTest extends ServletConformanceTests {

  @Override
  Class<? extends IdempotencyStore> expectedStore() {
    return InMemoryIdempotencyStore.class;
  }
}
