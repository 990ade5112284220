package dev.idem.core.memory;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** What {@link InMemoryStoreLincheckTest} and its {@link StoreModel} share. */
final class StoreScenario {

  static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
  static final Duration LEASE = Duration.ofSeconds(10);
  static final Duration RETENTION = Duration.ofHours(1);
  static final Outcome OUTCOME = Outcome.success(new byte[] {'r'});

  // Built once: Lincheck takes the loops that hash and check them for a livelock.
  private static final ClaimRequest[][] REQUESTS = new ClaimRequest[3][3];

  static {
    for (int key = 1; key <= 2; key++) {
      for (int fp = 0; fp <= 2; fp++) {
        Fingerprint fingerprint =
            fp == 0 ? Fingerprint.NONE : Fingerprint.of("POST /model", "" + fp);
        REQUESTS[key][fp] =
            ClaimRequest.of(IdempotencyKey.of("model", "k" + key), fingerprint, LEASE);
      }
    }
  }

  private StoreScenario() {}

  /** A claim of key {@code key} (1 or 2) with fingerprint {@code fingerprint} (0 for none). */
  static ClaimRequest request(int key, int fingerprint) {
    return REQUESTS[key][fingerprint];
  }

  /** The last lease each thread took of each key; a thread reads and writes only its own. */
  static final class Leases {
    private final Map<Integer, Lease> leases = new ConcurrentHashMap<>();

    void keep(int thread, int key, Lease lease) {
      leases.put(thread * 16 + key, lease);
    }

    Lease take(int thread, int key) {
      return leases.remove(thread * 16 + key);
    }
  }
}
