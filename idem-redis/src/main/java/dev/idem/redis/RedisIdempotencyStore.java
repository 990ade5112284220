package dev.idem.redis;

import dev.idem.core.ClaimRequest;
import dev.idem.core.ClaimResult;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyRecord;
import dev.idem.core.IdempotencyStore;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.Lease;
import dev.idem.core.Outcome;
import dev.idem.core.RecordChangeNotifier;
import dev.idem.core.StoreCapability;
import dev.idem.redis.internal.CompletedReplays;
import dev.idem.redis.internal.Connect;
import dev.idem.redis.internal.EvictionCheck;
import dev.idem.redis.internal.LuaScripts;
import dev.idem.redis.internal.Notifications;
import dev.idem.redis.internal.RecordReplies;
import dev.idem.redis.internal.RedisBackend;
import dev.idem.redis.internal.RedisKeys;
import dev.idem.redis.internal.ScriptRunner;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * An {@link IdempotencyStore} on Redis, standalone or Cluster, through Lettuce. Every operation is
 * one Lua script (one round trip), timed by the server's clock; the repeat of a key this store has
 * seen completed is a plain {@code HMGET} instead (see {@link #claim}). A record is one hash under
 * {@code <prefix>{<key digest>}} that expires with the record, so nothing is left behind; key
 * content is hashed and never reaches key or script syntax. See {@code docs/redis.md}.
 *
 * <p>Redis unreachable, timing out or failing gives {@link
 * dev.idem.core.IdempotencyStoreException}; the engine then fails closed unless told otherwise. Set
 * a command timeout on the client's {@code RedisURI} (Lettuce's default is 60 s). Redis must run
 * with {@code maxmemory-policy noeviction}: this store warns at startup when it does not. A Redis
 * that restarts without its data, or fails over to a replica that missed writes, forgets records:
 * deduplication of those keys is lost, and only the application's own constraints remain.
 *
 * <p>Implements {@link RecordChangeNotifier}: a duplicate waiting in WAIT mode is woken through a
 * pub/sub message when the record it waits for is completed or released. The caller keeps the
 * Lettuce client; {@link #close()} closes only this store's two connections.
 */
public final class RedisIdempotencyStore
    implements IdempotencyStore, RecordChangeNotifier, AutoCloseable {

  private final RedisBackend backend;
  private final RedisKeys keys;
  private final ScriptRunner scripts;
  private final Notifications changes;
  private final CompletedReplays replays;

  private RedisIdempotencyStore(RedisBackend backend, String keyPrefix) {
    this.keys = new RedisKeys(keyPrefix);
    this.backend = backend;
    try {
      this.scripts = new ScriptRunner(backend.scripting());
      this.replays = new CompletedReplays(backend.hashes());
      this.changes = new Notifications(backend.openPubSub(), keys.changeChannel());
    } catch (RedisException e) {
      backend.close();
      throw new IdempotencyStoreException("could not connect to Redis: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      backend.close();
      throw e;
    }
    EvictionCheck.warnUnlessNoEviction(backend, "RedisIdempotencyStore");
  }

  /** A store on a standalone Redis, keys prefixed with {@value RedisKeys#DEFAULT_PREFIX}. */
  public static RedisIdempotencyStore create(RedisClient client) {
    return create(client, RedisKeys.DEFAULT_PREFIX);
  }

  /**
   * A store on a standalone Redis.
   *
   * @param keyPrefix put in front of every key and channel; must not contain braces
   */
  public static RedisIdempotencyStore create(RedisClient client, String keyPrefix) {
    return new RedisIdempotencyStore(Connect.standalone(client), keyPrefix);
  }

  /** A store on a Redis Cluster, keys prefixed with {@value RedisKeys#DEFAULT_PREFIX}. */
  public static RedisIdempotencyStore create(RedisClusterClient client) {
    return create(client, RedisKeys.DEFAULT_PREFIX);
  }

  /**
   * A store on a Redis Cluster.
   *
   * @param keyPrefix put in front of every key and channel; must not contain braces
   */
  public static RedisIdempotencyStore create(RedisClusterClient client, String keyPrefix) {
    return new RedisIdempotencyStore(Connect.cluster(client), keyPrefix);
  }

  /**
   * {@inheritDoc}
   *
   * <p>The claim script, or, for a key this store has seen completed (it completed it or answered a
   * claim with its outcome), a plain {@code HMGET} of the record that falls back to the script if
   * the record is no longer completed. Either way the answer comes from Redis.
   */
  @Override
  public ClaimResult claim(ClaimRequest request) {
    IdempotencyKey key = request.key();
    byte[] recordKey = keys.record(key.digest());
    ClaimResult replayed = replays.replay(recordKey, request);
    if (replayed != null) {
      return replayed;
    }
    ThreadLocalRandom random = ThreadLocalRandom.current();
    String owner = new UUID(random.nextLong(), random.nextLong()).toString();
    ClaimResult result =
        RecordReplies.claim(
            scripts.list(
                LuaScripts.CLAIM,
                recordKey,
                RedisKeys.bytes(key.scope()),
                RedisKeys.bytes(key.value()),
                RedisKeys.bytes(request.fingerprint().value()),
                RedisKeys.bytes(RedisKeys.millis(request.lease())),
                flag(request.requireIssued()),
                RedisKeys.bytes(owner),
                flag(changes.hasListeners(key.digest()))),
            key,
            owner);
    if (result instanceof ClaimResult.Completed completed) {
      replays.remember(key.digest(), completed.record().expiresAt().toEpochMilli());
    }
    return result;
  }

  @Override
  public boolean complete(Lease lease, Outcome outcome, Duration retention) {
    String digest = lease.key().digest();
    long started = System.currentTimeMillis();
    boolean stored =
        scripts.number(
                LuaScripts.COMPLETE,
                keys.record(digest),
                RedisKeys.bytes(lease.fence()),
                RedisKeys.bytes(lease.owner()),
                RedisKeys.bytes(RedisKeys.millis(retention)),
                RedisKeys.bytes(outcome.kind() == Outcome.Kind.FAILURE ? "F" : "S"),
                outcome.payload(),
                keys.changeChannel(),
                RedisKeys.bytes(digest))
            == 1;
    if (stored) {
      replays.remember(digest, started + RedisKeys.millis(retention));
    }
    return stored;
  }

  @Override
  public boolean release(Lease lease) {
    String digest = lease.key().digest();
    return scripts.number(
            LuaScripts.RELEASE,
            keys.record(digest),
            RedisKeys.bytes(lease.fence()),
            RedisKeys.bytes(lease.owner()),
            keys.changeChannel(),
            RedisKeys.bytes(digest))
        == 1;
  }

  @Override
  public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
    long until =
        scripts.number(
            LuaScripts.RENEW,
            keys.record(lease.key().digest()),
            RedisKeys.bytes(lease.fence()),
            RedisKeys.bytes(lease.owner()),
            RedisKeys.bytes(RedisKeys.millis(leaseDuration)));
    return until == 0
        ? Optional.empty()
        : Optional.of(lease.withUntil(Instant.ofEpochMilli(until)));
  }

  @Override
  public Optional<IdempotencyRecord> find(IdempotencyKey key) {
    return RecordReplies.found(scripts.list(LuaScripts.FIND, keys.record(key.digest())), key);
  }

  @Override
  public boolean issue(IdempotencyKey key, Duration ttl) {
    return scripts.number(
            LuaScripts.ISSUE,
            keys.record(key.digest()),
            RedisKeys.bytes(RedisKeys.millis(ttl)),
            RedisKeys.bytes(key.scope()),
            RedisKeys.bytes(key.value()))
        == 1;
  }

  /** Returns 0: every record carries its own Redis expiry, so Redis removes expired ones itself. */
  @Override
  public int purgeExpired(int limit) {
    return 0;
  }

  @Override
  public Set<StoreCapability> capabilities() {
    return Set.of(StoreCapability.SHARED_BETWEEN_PROCESSES, StoreCapability.CHANGE_NOTIFICATION);
  }

  /**
   * Calls {@code listener} once when the key's record is next completed or released by any process
   * on this Redis. A lease that runs out sends nothing, and a message lost during a reconnect is
   * not repeated: waiters must also wake by time, as the engine's do.
   */
  @Override
  public Subscription onChange(IdempotencyKey key, Runnable listener) {
    Runnable remove = changes.listen(key.digest(), listener);
    return remove::run;
  }

  /** Closes this store's connections; the Lettuce client stays open. */
  @Override
  public void close() {
    try {
      changes.close();
    } finally {
      backend.close();
    }
  }

  private static byte[] flag(boolean b) {
    return RedisKeys.bytes(b ? "1" : "0");
  }
}
