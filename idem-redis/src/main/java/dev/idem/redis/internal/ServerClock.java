package dev.idem.redis.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This process's reading of a standalone Redis server's clock, for the fences of claims that write
 * a fresh key in one command (a plain {@code SET}, or the capped claim's short script): a {@code
 * TIME} sample, asked for again once it is a second old and never used past a minute, carried
 * forward by this process's monotonic clock, never by its wall clock (application nodes' wall
 * clocks may differ by minutes). A sample counts as of the moment {@code TIME} was sent, and is
 * kept only when its round trip took 50 ms or less: the server read its clock after that moment, so
 * the reading never runs behind the server (but for the drift of two clocks over a minute), and
 * runs ahead of it by at most that round trip. Behind, a fence could fall below that of the key's
 * last record, claimed by the script with a lease too short for this path, whose key expired
 * moments ago. Ahead is harmless: such a fence is only given to a key that holds no record, for a
 * lease of {@link #SHORTEST_LEASE} or longer, so its record lives far longer than the reading
 * leads, and the next claim of the key (by the script, or from a reading of its own) finds a clock
 * past it.
 */
public final class ServerClock {

  private static final Logger log = LoggerFactory.getLogger(ServerClock.class);

  // How old a sample may get before a new one is asked for.
  private static final long RESAMPLE_NANOS = 1_000_000_000L;

  // The oldest sample a fence may come from: past it (no sample kept for a minute, every round
  // trip too slow or failing) the two clocks may have drifted apart, and claims go to the script.
  private static final long MAX_AGE_NANOS = 60_000_000_000L;

  // The longest round trip a sample may take to count: a reply that came late, or was read late
  // (a busy or paused client), would put the reading ahead by as long.
  private static final long MAX_ROUND_TRIP_NANOS = 50_000_000L;

  /**
   * The shortest lease whose claims may take a fence from this reading: its record lives twice as
   * long, far longer than the reading can lag.
   */
  public static final Duration SHORTEST_LEASE = Duration.ofSeconds(1);

  private record Sample(long serverMicros, long nanos) {}

  private final RedisBackend backend;
  private final AtomicBoolean sampling = new AtomicBoolean();
  private final AtomicLong lastFence = new AtomicLong();
  private volatile @Nullable Sample sample;

  public ServerClock(RedisBackend backend) {
    this.backend = backend;
  }

  /**
   * A fence for a fresh key: the server's clock in microseconds as read here, and greater than
   * every fence this reading gave before; 0 when there is no reading (yet, for a minute, or in a
   * Cluster), and then the claim script must make the fence.
   */
  public long nextFence() {
    long now = System.nanoTime();
    Sample s = sample;
    if (s == null || now - s.nanos() > RESAMPLE_NANOS) {
      resample();
    }
    if (s == null || now - s.nanos() > MAX_AGE_NANOS) {
      return 0;
    }
    long micros = s.serverMicros() + (now - s.nanos()) / 1_000;
    return lastFence.updateAndGet(last -> Math.max(last + 1, micros));
  }

  private void resample() {
    if (!sampling.compareAndSet(false, true)) {
      return;
    }
    long sent = System.nanoTime();
    CompletableFuture<List<byte[]>> time = backend.serverTime();
    if (time == null) {
      sampling.set(false);
      return;
    }
    time.whenComplete(
        (reply, failure) -> {
          try {
            long received = System.nanoTime();
            if (failure == null && received - sent <= MAX_ROUND_TRIP_NANOS) {
              sample = new Sample(micros(reply), sent);
            } else if (failure != null) {
              log.debug("no reading of the server's clock: {}", failure.toString());
            }
          } finally {
            sampling.set(false);
          }
        });
  }

  private static long micros(List<byte[]> reply) {
    long seconds = Long.parseLong(new String(reply.get(0), StandardCharsets.US_ASCII));
    long micros = Long.parseLong(new String(reply.get(1), StandardCharsets.US_ASCII));
    return seconds * 1_000_000 + micros;
  }
}
