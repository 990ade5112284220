package dev.idem.redis;

import static dev.idem.testsupport.Stages.now;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.testsupport.net.FaultProxy;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * A fresh key's fence taken from this process's reading of the server's clock (a plain {@code SET}
 * claim) is greater than the fence of the record the key held before, when that record had a lease
 * too short for the plain claim and its key expired moments ago: the reading must never run behind
 * the server, however far its reply took to arrive.
 */
class RedisFenceLagIT {

  private static final String PREFIX = "idem-fence-lag-it:";
  private static final Duration ONE_WAY = Duration.ofMillis(15);
  private static final Duration SHORT_LEASE = Duration.ofMillis(10);
  private static final Duration LONG_LEASE = Duration.ofSeconds(2);

  @Test
  void aPlainClaimAfterAShortLeasedRecordExpiredGetsAGreaterFence() {
    RedisURI server = RedisURI.create(RedisTestServers.STANDALONE_URI);
    RedisClient near = RedisTestServers.standaloneClient();
    try (FaultProxy proxy = FaultProxy.start(server.getHost(), server.getPort())) {
      RedisURI proxied = RedisURI.create(RedisTestServers.STANDALONE_URI);
      proxied.setHost(proxy.host());
      proxied.setPort(proxy.port());
      RedisClient far = RedisClient.create(proxied);
      try (RedisIdempotencyStore first = RedisIdempotencyStore.create(near, PREFIX);
          RedisIdempotencyStore late = RedisIdempotencyStore.create(far, PREFIX)) {
        proxy.latency(ONE_WAY);
        // the late store's reading of the clock, taken through the slow path
        now(late.claim(ClaimRequest.of(key(), Fingerprint.NONE, LONG_LEASE)));
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1200));
        now(late.claim(ClaimRequest.of(key(), Fingerprint.NONE, LONG_LEASE)));
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));

        // the late claim reaches Redis a one-way trip after it leaves, by then the first record's
        // key (twice its lease) may have expired: it is sent at several moments around that
        for (int delayMs = 0; delayMs <= 12; delayMs += 2) {
          IdempotencyKey key = key();
          ClaimResult.Claimed before =
              (ClaimResult.Claimed)
                  now(first.claim(ClaimRequest.of(key, Fingerprint.NONE, SHORT_LEASE)));
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(delayMs));
          ClaimResult after = now(late.claim(ClaimRequest.of(key, Fingerprint.NONE, LONG_LEASE)));
          if (after instanceof ClaimResult.Claimed claimed) {
            assertThat(claimed.lease().fence())
                .as("fence after a %d ms pause", delayMs)
                .isGreaterThan(before.lease().fence());
          }
        }
      } finally {
        far.shutdown();
      }
    } finally {
      near.shutdown();
    }
  }

  private static IdempotencyKey key() {
    return IdempotencyKey.of("fence-lag", UUID.randomUUID().toString());
  }
}
