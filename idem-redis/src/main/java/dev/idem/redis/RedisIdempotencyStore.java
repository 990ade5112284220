package dev.idem.redis;

import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.StoreFullException;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.IdempotencyRecord;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordChangeNotifier;
import dev.idem.core.store.RecordState;
import dev.idem.core.store.StoreCapability;
import dev.idem.redis.internal.ClaimBatches;
import dev.idem.redis.internal.CompletedReplays;
import dev.idem.redis.internal.Connect;
import dev.idem.redis.internal.EvictionCheck;
import dev.idem.redis.internal.LuaScripts;
import dev.idem.redis.internal.Notifications;
import dev.idem.redis.internal.RecordClaims;
import dev.idem.redis.internal.RecordCompletions;
import dev.idem.redis.internal.RecordValue;
import dev.idem.redis.internal.RedisBackend;
import dev.idem.redis.internal.RedisFailures;
import dev.idem.redis.internal.RedisKeys;
import dev.idem.redis.internal.ScopeTally;
import dev.idem.redis.internal.ScriptRunner;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link IdempotencyStore} on Redis, standalone or Cluster, through Lettuce. Every operation is
 * one round trip, timed by the server's clock: a Lua script, or a plain command where one suffices
 * (the repeat of a completed key is a {@code GET}; see {@link #claim}). A record is one string
 * value under {@code <prefix>{<key digest>}} that expires with the record, so nothing is left
 * behind; key content is hashed and never reaches key or script syntax. See {@code docs/redis.md}.
 *
 * <p>Redis unreachable, timing out or failing gives {@link
 * dev.idem.core.IdempotencyStoreException}; the engine then fails closed unless told otherwise. A
 * call waits at most the client's command timeout, never over 10 s ({@link #callTimeout}); a claim
 * at most half its lease. Redis must run with {@code maxmemory-policy noeviction} (warned at start
 * otherwise). A Redis that restarts without its data, or fails over to a replica that missed
 * writes, forgets records, unless claims wait for replicas ({@link ReplicaAcks}).
 *
 * <p>Just over 400 lines because every store call starts here; claims and releases live in {@code
 * internal.RecordClaims}, batches of claims in {@code internal.ClaimBatches} (one script per hash
 * slot; one by one with replica acknowledgements), completions in {@code
 * internal.RecordCompletions}. A duplicate waiting in WAIT mode is woken by a pub/sub message
 * ({@link RecordChangeNotifier}). {@link #close()} closes this store's two connections only.
 */
public final class RedisIdempotencyStore
    implements IdempotencyStore, RecordChangeNotifier, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RedisIdempotencyStore.class);

  private final RedisBackend backend;
  private final RedisKeys keys;
  private final String keyPrefix;
  private final ScriptRunner scripts;
  private final Notifications changes;
  private final CompletedReplays replays;
  private final ScopeTally tally;
  private final byte[] changeChannel;
  private final RecordClaims claims;
  private final ClaimBatches batches;
  private final RecordCompletions completions;
  private final @Nullable ReplicaAcks acks;

  private RedisIdempotencyStore(
      RedisBackend backend, String keyPrefix, @Nullable ReplicaAcks acks, Clock clock) {
    this.acks = acks;
    this.keys = new RedisKeys(keyPrefix);
    this.keyPrefix = keyPrefix;
    this.changeChannel = keys.changeChannel();
    this.backend = backend;
    try {
      this.scripts = new ScriptRunner(backend);
      this.replays = new CompletedReplays(backend.stringsAsync(), clock);
      this.tally = new ScopeTally(backend, scripts, keys);
      this.changes = new Notifications(backend.openPubSub(), keys.changeChannel());
      this.claims = new RecordClaims(backend, keys, scripts, replays, tally, changes);
      this.batches = new ClaimBatches(backend, keys, claims);
      this.completions = new RecordCompletions(backend, keys, scripts, replays, tally, clock);
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
    return new RedisIdempotencyStore(
        Connect.standalone(client), keyPrefix, null, Clock.systemUTC());
  }

  /**
   * A store on a standalone Redis whose process reads {@code clock}: how tests show that nothing a
   * store hands out follows a node's clock that is wrong.
   */
  static RedisIdempotencyStore create(RedisClient client, String keyPrefix, Clock clock) {
    return new RedisIdempotencyStore(Connect.standalone(client), keyPrefix, null, clock);
  }

  /**
   * A store on a standalone Redis (or a primary behind Sentinel) whose claims count only once
   * {@code acks} replicas have them.
   *
   * @param keyPrefix put in front of every key and channel; must not contain braces
   */
  public static RedisIdempotencyStore create(
      RedisClient client, String keyPrefix, ReplicaAcks acks) {
    return new RedisIdempotencyStore(
        Connect.standalone(client),
        keyPrefix,
        java.util.Objects.requireNonNull(acks, "acks"),
        Clock.systemUTC());
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
    return new RedisIdempotencyStore(Connect.cluster(client), keyPrefix, null, Clock.systemUTC());
  }

  /** A store on a Redis Cluster whose process reads {@code clock}; for tests, as above. */
  static RedisIdempotencyStore create(RedisClusterClient client, String keyPrefix, Clock clock) {
    return new RedisIdempotencyStore(Connect.cluster(client), keyPrefix, null, clock);
  }

  /**
   * {@inheritDoc}
   *
   * <p>The claim is the claim script, which applies the rules by the server's clock and takes the
   * fence from the record and that clock, so fences grow whatever this process's clock says. A key
   * this store has seen completed is read with a plain {@code GET} first. Either way the answer
   * comes from Redis. Without {@link ReplicaAcks}, the claim's commands are sent at once and the
   * stage ends on Lettuce's thread when Redis answers, or fails after the call timeout; with them,
   * the claim waits for the replicas on the calling thread. Either way a claim whose caller gave up
   * on it is given back.
   */
  @Override
  public CompletableFuture<ClaimResult> claim(ClaimRequest request) {
    return acks != null ? acknowledged(acks, request) : sent(request);
  }

  @Override
  public List<CompletableFuture<ClaimResult>> claimAll(List<ClaimRequest> requests) {
    return acks != null
        ? IdempotencyStore.super.claimAll(requests)
        : batches.claimAll(requests, this::sent);
  }

  private CompletableFuture<ClaimResult> sent(ClaimRequest request) {
    Duration timeout = RecordClaims.bound(backend.timeout(), request.lease());
    String owner = RecordClaims.owner(request);
    return RecordClaims.bounded(claims.claim(request, owner), timeout, backend.timer())
        .whenComplete(
            (result, failure) -> {
              // a scope that was full is Redis's answer: nothing was left claimed to give back
              if (failure != null
                  && !(ScriptRunner.failed(failure) instanceof StoreFullException)) {
                claims.giveBack(request.key(), owner, request.lease());
              }
            });
  }

  private CompletableFuture<ClaimResult> acknowledged(ReplicaAcks acks, ClaimRequest request) {
    String owner = RecordClaims.owner(request);
    try {
      ClaimResult result =
          RecordClaims.await(
              claims.claim(request, owner), RecordClaims.bound(backend.timeout(), request.lease()));
      if (result instanceof ClaimResult.Claimed claimed) {
        replicated(acks, claimed.lease());
      }
      return CompletableFuture.completedFuture(result);
    } catch (RuntimeException e) {
      claims.giveBack(request.key(), owner, request.lease());
      return CompletableFuture.failedFuture(e);
    }
  }

  // Releases and refuses a claim that fewer replicas than asked have (see ReplicaAcks).
  private void replicated(ReplicaAcks acks, Lease lease) {
    long acknowledged;
    try {
      acknowledged = backend.waitForReplicas(acks.replicas(), RedisKeys.millis(acks.timeout()));
    } catch (RedisException e) {
      throw releasing(lease, RedisFailures.of(e));
    }
    if (acknowledged < acks.replicas()) {
      throw releasing(
          lease,
          new IdempotencyStoreException(
              "claim acknowledged by "
                  + acknowledged
                  + " of "
                  + acks.replicas()
                  + " replicas within "
                  + acks.timeout()
                  + ": released, since a failover could lose it"));
    }
  }

  // A release that fails leaves the claim to its lease; the refusal is what the caller must see.
  private RuntimeException releasing(Lease lease, RuntimeException refusal) {
    try {
      RecordClaims.await(claims.release(lease), backend.timeout());
    } catch (RuntimeException e) {
      refusal.addSuppressed(e);
    }
    return refusal;
  }

  /** How long a call waits for Redis at most: the command timeout, up to 10 s. */
  public Duration callTimeout() {
    return backend.timeout();
  }

  /**
   * {@inheritDoc}
   *
   * <p>The completion script and, for a counted claim, the move of its count are sent at once; the
   * stage ends on Lettuce's thread when both have answered, each within the call timeout. A count
   * that could not be moved is logged: it ends by itself.
   */
  @Override
  public CompletableFuture<Boolean> complete(Lease lease, Outcome outcome, Duration retention) {
    return completions.complete(lease, outcome, retention);
  }

  /**
   * {@inheritDoc} The release script is sent at once; its stage ends on Lettuce's thread, within
   * the call timeout.
   */
  @Override
  public CompletableFuture<Boolean> release(Lease lease) {
    return completions.bounded(claims.release(lease));
  }

  /**
   * {@inheritDoc}
   *
   * <p>One script decides and writes, as {@link #release} does; a record that is gone then stops
   * counting in its scope's tally (a removal from a set it may not be in, so nobody needs to know
   * whether its claim was counted).
   */
  @Override
  public boolean evict(IdempotencyKey key, RecordState state, long fence) {
    String digest = key.digest();
    // the steps of an answer are found before it goes and deleted in its script: while the answer
    // stands no run makes new steps, so none of a next run's is taken for an old one
    List<byte[]> steps =
        state == RecordState.IN_PROGRESS || key.isStep()
            ? List.of()
            : backend.keysMatching(keys.stepsOf(key));
    byte[][] deleted = new byte[steps.size() + 1][];
    deleted[0] = keys.record(key);
    for (int i = 0; i < steps.size(); i++) {
      deleted[i + 1] = steps.get(i);
    }
    long evicted =
        scripts.number(
            LuaScripts.EVICT,
            deleted,
            RedisKeys.bytes(RecordValue.stateCode(state)),
            RedisKeys.bytes(fence),
            changeChannel,
            RedisKeys.bytes(digest));
    if (evicted == 1) {
      stopCounting(key);
    }
    return evicted != 0;
  }

  private void stopCounting(IdempotencyKey key) {
    try {
      RecordClaims.await(claims.stopCounting(key), backend.timeout());
    } catch (RuntimeException e) {
      log.warn("could not stop counting an evicted record of {}: {}", key, e.toString());
    }
  }

  @Override
  public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
    long until =
        scripts.number(
            LuaScripts.RENEW,
            keys.record(lease.key()),
            RedisKeys.bytes(lease.fence()),
            RedisKeys.bytes(lease.owner()),
            RedisKeys.bytes(RedisKeys.millis(leaseDuration)));
    return until == 0
        ? Optional.empty()
        : Optional.of(lease.withUntil(Instant.ofEpochMilli(until)));
  }

  @Override
  public Optional<IdempotencyRecord> find(IdempotencyKey key) {
    return RecordValue.found(scripts.list(LuaScripts.FIND, keys.record(key)), key);
  }

  @Override
  public boolean issue(IdempotencyKey key, Duration ttl, int scopeCap) {
    long ttlMillis = RedisKeys.millis(ttl);
    byte[] recordKey = keys.record(key);
    byte[] ttlArg = RedisKeys.bytes(ttlMillis);
    byte[] scope = RedisKeys.bytes(key.scope());
    byte[] value = RedisKeys.bytes(key.value());
    if (scopeCap == ClaimRequest.NO_CAP) {
      return scripts.number(LuaScripts.ISSUE, recordKey, ttlArg, scope, value) == 1;
    }
    byte[] tallyKey = tally.tally(key);
    if (tally.sharesSlot(recordKey, tallyKey)) {
      long issued =
          scripts.number(
              LuaScripts.ISSUE,
              new byte[][] {recordKey, tallyKey},
              ttlArg,
              scope,
              value,
              RedisKeys.bytes(scopeCap),
              RedisKeys.bytes(key.digest()));
      if (issued < 0) {
        throw StoreFullException.scopeCap(scopeCap, key.scope());
      }
      return issued == 1;
    }
    CompletableFuture<Long> counted = tally.count(key, ttlMillis, scopeCap);
    boolean issued = scripts.number(LuaScripts.ISSUE, recordKey, ttlArg, scope, value) == 1;
    boolean room;
    try {
      room = RecordClaims.await(counted, backend.timeout()) == 1;
    } catch (RuntimeException e) {
      room = false;
    }
    if (issued && !room) {
      scripts.number(LuaScripts.DROP_ISSUED, recordKey);
      throw StoreFullException.scopeCap(scopeCap, key.scope());
    }
    return issued;
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

  /**
   * A resume log for a {@link dev.idem.core.resume.Completer} on this store's connection, under its
   * key prefix. It lives as long as the store: closing the log leaves the connection open, closing
   * the store ends both.
   */
  public RedisResumeLog resumeLog() {
    return RedisResumeLog.sharing(backend, keyPrefix);
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
}
