package dev.idem.bench;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Outcome;
import dev.idem.redis.RedisIdempotencyStore;
import dev.idem.redis.internal.RedisKeys;
import dev.idem.testsupport.servers.PrivateRedis;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Redis in the scale benchmark: a private {@code redis-server} (no persistence, killed on close),
 * so that ten million records never touch the shared server. Filled by pipelined {@code SET ...
 * PX}: each key the store's record key of a fill key, each value the template record's bytes, each
 * expiry the template's remaining one.
 */
final class RedisScaleTarget implements ScaleTarget {

  private static final String PREFIX = "idem-scale:";
  private static final int BATCH = 2_000;

  private final PrivateRedis server;
  private final RedisClient client;
  private final RedisIdempotencyStore store;
  private final StatefulRedisConnection<byte[], byte[]> raw;

  RedisScaleTarget() {
    // DEBUG HTSTATS tells when the key table has grown to its new size (see settle).
    this.server = PrivateRedis.start("--enable-debug-command", "local");
    this.client = RedisClient.create(server.url());
    this.store = RedisIdempotencyStore.create(client, PREFIX);
    this.raw = client.connect(ByteArrayCodec.INSTANCE);
  }

  @Override
  public String name() {
    return "Redis";
  }

  @Override
  public IdempotencyStore store() {
    return store;
  }

  @Override
  public void fill(String prefix, long from, long to, boolean expired) throws Exception {
    if (expired) {
      // ScaleBench asks only a target that purges (purge answers -1 here) for expired rows.
      throw new IllegalArgumentException(
          "Redis drops expired records itself: there are no expired records to fill");
    }
    copy(store, PREFIX, RECEIPT, prefix, from, to);
    settle();
  }

  // Redis grows its key table by doubling and moves the keys to the new table a few at a time, on
  // each command and for a millisecond of every tenth of a second. A fill that ends just past a
  // power of two (ten million is 1.2 times 2^23) leaves most of that move to the measured windows,
  // which a server in steady use at that size finished long ago: wait for it, at most two minutes.
  private void settle() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    long start = System.nanoTime();
    while (rehashing()) {
      if (System.nanoTime() > deadline) {
        System.out.println("Redis: still growing its key table after two minutes; measuring");
        return;
      }
      Thread.sleep(200);
    }
    long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    if (waited > 0) {
      System.out.printf(Locale.ROOT, "Redis: waited %d ms for the key table to grow%n", waited);
    }
  }

  private boolean rehashing() {
    String stats =
        raw.sync()
            .dispatch(
                CommandType.DEBUG,
                new StatusOutput<>(ByteArrayCodec.INSTANCE),
                new CommandArgs<>(ByteArrayCodec.INSTANCE).add("HTSTATS").add(0));
    return stats.contains("rehashing target");
  }

  @Override
  public double bytesPerRecord(int outcomeBytes, int records) throws Exception {
    String prefix = "idem-size-" + outcomeBytes + ":";
    byte[] outcome = new byte[outcomeBytes];
    ThreadLocalRandom.current().nextBytes(outcome);
    try (RedisIdempotencyStore sized = RedisIdempotencyStore.create(client, prefix)) {
      copy(sized, prefix, outcome, "size-", 0, records);
      long total = 0;
      int samples = Math.min(records, 500);
      for (int i = 0; i < samples; i++) {
        // SAMPLES 0: every byte of the value, not an estimate from a few of its elements.
        Long used =
            raw.sync()
                .memoryUsage(recordKey(prefix, ScaleTarget.key("size-", i * (records / samples))));
        total += used;
      }
      deleteKeys(prefix);
      return total / (double) samples;
    }
  }

  @Override
  public int purge(int limit) {
    return -1;
  }

  // Pipelined copies of a template the store completed: BATCH commands in flight per flush.
  private void copy(
      RedisIdempotencyStore target,
      String keyPrefix,
      byte[] outcome,
      String prefix,
      long from,
      long to)
      throws Exception {
    IdempotencyKey template = ScaleTarget.key("template-", System.nanoTime());
    ClaimRequest request =
        ClaimRequest.of(template, Fingerprint.NONE, IdempotencyConfig.DEFAULT_LEASE);
    if (!(target.claim(request).join() instanceof ClaimResult.Claimed claimed)) {
      throw new IllegalStateException("a fresh template key was not claimed");
    }
    target
        .complete(claimed.lease(), Outcome.success(outcome), IdempotencyConfig.DEFAULT_RETENTION)
        .join();
    byte[] value = raw.sync().get(recordKey(keyPrefix, template));
    long ttl = raw.sync().pttl(recordKey(keyPrefix, template));
    SetArgs px = SetArgs.Builder.px(ttl);
    RedisAsyncCommands<byte[], byte[]> async = raw.async();
    raw.setAutoFlushCommands(false);
    try {
      for (long start = from; start < to; start += BATCH) {
        List<RedisFuture<String>> sent = new ArrayList<>(BATCH);
        for (long i = start; i < Math.min(to, start + BATCH); i++) {
          sent.add(async.set(recordKey(keyPrefix, ScaleTarget.key(prefix, i)), value, px));
        }
        raw.flushCommands();
        for (RedisFuture<String> each : sent) {
          each.get(30, TimeUnit.SECONDS);
        }
      }
    } finally {
      raw.setAutoFlushCommands(true);
    }
  }

  private static byte[] recordKey(String prefix, IdempotencyKey key) {
    return new RedisKeys(prefix).record(key);
  }

  private void deleteKeys(String prefix) {
    ScanArgs args = ScanArgs.Builder.matches(prefix + "*").limit(BATCH);
    ScanCursor cursor = ScanCursor.INITIAL;
    do {
      KeyScanCursor<byte[]> page = raw.sync().scan(cursor, args);
      if (!page.getKeys().isEmpty()) {
        raw.sync().unlink(page.getKeys().toArray(byte[][]::new));
      }
      cursor = page;
    } while (!cursor.isFinished());
  }

  @Override
  public void close() {
    try {
      raw.close();
      store.close();
      client.shutdown();
    } finally {
      server.close();
    }
  }
}
