package dev.idem.spring.aop;

import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Bean-method outcomes and the caller's transaction, on the in-memory store. */
class MemoryIdempotentMethodTransactionTest extends IdempotentMethodTransactionTests {

  @Override
  ApplicationContextRunner configure(ApplicationContextRunner runner) {
    return runner;
  }

  @Override
  Class<? extends IdempotencyStore> expectedStore() {
    return InMemoryIdempotencyStore.class;
  }
}
