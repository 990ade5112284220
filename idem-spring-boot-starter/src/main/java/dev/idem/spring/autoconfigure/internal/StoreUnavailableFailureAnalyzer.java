package dev.idem.spring.autoconfigure.internal;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a store that {@code idem.store} names but the application cannot build. */
public final class StoreUnavailableFailureAnalyzer
    extends AbstractFailureAnalyzer<StoreUnavailableException> {

  @Override
  protected FailureAnalysis analyze(Throwable root, StoreUnavailableException cause) {
    return new FailureAnalysis(cause.description(), cause.action(), cause);
  }
}
