package dev.idem.redis.internal;

import dev.idem.core.IdempotencyException;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.StoreFullException;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.Lease;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.async.RedisStringAsyncCommands;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Redis store's claim and release, written once as stages that no thread waits on: each command
 * is sent at once and what follows runs when its reply comes, on Lettuce's thread. The store
 * returns these stages; a caller that blocks waits for them on its own thread. Nothing here blocks,
 * so nothing here may call a blocking command: a blocked Lettuce thread would never read the reply
 * it waits for.
 *
 * <p>Longer than 400 lines because a claim's three ways (a fresh key's one command, the script, and
 * the script beside a Cluster's separate count) and the release and give-back that undo them share
 * the owner's rules and the bounded stages; each way is a short method of its own.
 */
public final class RecordClaims {

  private static final Logger log = LoggerFactory.getLogger(RecordClaims.class);

  // How long at least the mark of a claim given back stays: longer than any command timeout.
  private static final long GIVEN_BACK_MARK_MS = 60_000;

  /** The owner mark of a claim that counted its record in its scope's tally. */
  public static final String COUNTED = "c-";

  private final RedisKeys keys;
  private final ScriptRunner scripts;
  private final CompletedReplays replays;
  private final ScopeTally tally;
  private final ServerClock serverClock;
  private final RedisStringAsyncCommands<byte[], byte[]> strings;
  private final Notifications changes;
  private final byte[] changeChannel;

  public RecordClaims(
      RedisBackend backend,
      RedisKeys keys,
      ScriptRunner scripts,
      CompletedReplays replays,
      ScopeTally tally,
      Notifications changes) {
    this.keys = keys;
    this.scripts = scripts;
    this.replays = replays;
    this.tally = tally;
    this.serverClock = new ServerClock(backend);
    this.strings = backend.stringsAsync();
    this.changes = changes;
    this.changeChannel = keys.changeChannel();
  }

  /**
   * Waits for {@code stage} at most {@code timeout} (zero: no limit) and answers its value, or
   * throws what it failed with as the store throws it.
   */
  public static <T> T await(CompletableFuture<T> stage, Duration timeout) {
    try {
      return timeout.isZero() ? stage.get() : stage.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      throw ScriptRunner.failed(e.getCause() != null ? e.getCause() : e);
    } catch (TimeoutException e) {
      throw timedOut(timeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IdempotencyStoreException("interrupted while waiting for Redis", e);
    }
  }

  /**
   * {@code stage} as the store answers it: failed with the store's timeout failure if it has not
   * ended within {@code timeout} (zero: no limit), and with the store's own exception for any other
   * failure of the command.
   */
  public static <T> CompletableFuture<T> bounded(
      CompletableFuture<T> stage, Duration timeout, Timer timer) {
    return within(stage, timeout, timer)
        .exceptionallyCompose(
            failure ->
                CompletableFuture.failedFuture(
                    failure instanceof TimeoutException
                        ? timedOut(timeout)
                        : ScriptRunner.failed(failure)));
  }

  /**
   * {@code stage}, failed with a {@link TimeoutException} if it has not ended within {@code
   * timeout} (zero: no limit), timed on {@code timer}. Not the JDK's {@code orTimeout}: a stage
   * that ends cancels its timeout on the thread that ends it, Lettuce's I/O thread here, and the
   * JDK's cancel takes its scheduler's lock, which that thread must not wait for (under BlockHound
   * it is refused mid-wait and leaves the lock broken for every later timeout); a cancel on the
   * client's timer takes none.
   */
  private static <T> CompletableFuture<T> within(
      CompletableFuture<T> stage, Duration timeout, Timer timer) {
    if (timeout.isZero() || stage.isDone()) {
      return stage;
    }
    CompletableFuture<T> bounded = new CompletableFuture<>();
    Timeout expiry =
        timer.newTimeout(
            ignored -> bounded.completeExceptionally(new TimeoutException()),
            timeout.toNanos(),
            TimeUnit.NANOSECONDS);
    stage.whenComplete(
        (value, failure) -> {
          expiry.cancel();
          if (failure != null) {
            bounded.completeExceptionally(failure);
          } else {
            bounded.complete(value);
          }
        });
    return bounded;
  }

  /**
   * How long a claim with {@code lease} is waited for: the client's command timeout (zero: none),
   * but never half the lease or more, whatever the application set (Lettuce's default of 60 s is
   * twice the default lease): a claim answered after its lease ended could hand out a key another
   * owner took over meanwhile. One given up on is given back.
   */
  public static Duration bound(Duration clientTimeout, Duration lease) {
    Duration half = lease.dividedBy(2);
    return clientTimeout.isZero() || clientTimeout.compareTo(half) > 0 ? half : clientTimeout;
  }

  /** The failure of a call that had no answer within {@code timeout}, as Lettuce's own. */
  public static IdempotencyException timedOut(Duration timeout) {
    return RedisFailures.of(new RedisCommandTimeoutException("Command timed out after " + timeout));
  }

  /**
   * Claims the key. A key this store has seen completed is read with a plain {@code GET} first. A
   * claim with a lease of {@link ServerClock#SHORTEST_LEASE} or more, not a token's, is first sent
   * as the claim of a key that holds no record, fenced by the server's clock as read here: a plain
   * {@code SET NX}, or when capped a short script that counts and sets (see {@link #claimFresh}); a
   * key that holds a record goes on to the claim script, whose fence comes from the record and the
   * server's clock. Neither reads this process's wall clock: fences grow across nodes whose clocks
   * differ. A capped claim counts in its scope's tally (in the script when the tally shares the
   * record's slot) and is refused when the scope is full.
   */
  public CompletableFuture<ClaimResult> claim(ClaimRequest request, String owner) {
    byte[] recordKey = keys.record(request.key());
    CompletableFuture<ClaimResult> replayed = replays.replay(recordKey, request);
    if (replayed.isDone() && !replayed.isCompletedExceptionally() && replayed.join() == null) {
      // no read was sent: the claim goes out now, ahead of any give-back of this owner
      return claimCounted(recordKey, request, owner, true);
    }
    return orElse(replayed, () -> claimCounted(recordKey, request, owner, false));
  }

  /** A new owner for a claim of {@code request}: unique, and marked when the claim is counted. */
  public static String owner(ClaimRequest request) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    return (request.capped() ? COUNTED : "") + new UUID(random.nextLong(), random.nextLong());
  }

  // now: sent on the caller's thread, before the caller can give the claim back. A plain SET does
  // not check the given-back mark, so a claim sent later (after a read) goes to the script.
  private CompletableFuture<ClaimResult> claimCounted(
      byte[] recordKey, ClaimRequest request, String owner, boolean now) {
    long leaseMillis = RedisKeys.millis(request.lease());
    IdempotencyKey key = request.key();
    boolean fresh =
        now
            && !request.requireIssued()
            && request.lease().compareTo(ServerClock.SHORTEST_LEASE) >= 0;
    byte[][] scriptKeys = {recordKey, keys.givenBack(key, owner)};
    if (!request.capped()) {
      long fence = fresh ? serverClock.nextFence() : 0;
      return fence > 0
          ? claimFresh(recordKey, request, owner, fence, scriptKeys)
          : claimByScript(scriptKeys, request, owner);
    }
    byte[] tallyKey = tally.tally(key);
    if (tally.sharesSlot(recordKey, tallyKey)) {
      byte[][] countedKeys = {recordKey, keys.givenBack(key, owner), tallyKey};
      byte[] cap = RedisKeys.bytes(request.scopeCap());
      byte[] digest = RedisKeys.bytes(key.digest());
      long fence = fresh ? serverClock.nextFence() : 0;
      return fence > 0
          ? claimFresh(recordKey, request, owner, fence, countedKeys, cap, digest)
          : claimByScript(countedKeys, request, owner, cap, digest);
    }
    CompletableFuture<Long> counted = tally.count(key, 2 * leaseMillis, request.scopeCap());
    return claimByScript(scriptKeys, request, owner)
        .thenCompose(
            result -> {
              // a token's use is never refused: the token was counted when it was issued
              if (!(result instanceof ClaimResult.Claimed claimed) || request.requireIssued()) {
                return CompletableFuture.completedFuture(result);
              }
              return followUp(
                  counted.handle((number, failure) -> refusal(number, failure, request)),
                  refusal -> refusal != null,
                  refusal ->
                      refusal == null
                          ? CompletableFuture.completedFuture(result)
                          : release(claimed.lease())
                              .handle((released, ignored) -> refusal)
                              .thenCompose(CompletableFuture::<ClaimResult>failedFuture));
            });
  }

  // Why a claimed key must be given back: its count failed, or its scope is full; null if neither.
  private static @Nullable RuntimeException refusal(
      Long number, @Nullable Throwable failure, ClaimRequest request) {
    if (failure != null) {
      return ScriptRunner.failed(failure);
    }
    return number == 1
        ? null
        : StoreFullException.scopeCap(request.scopeCap(), request.key().scope());
  }

  /**
   * Claims a key that holds no record with one command: the record in progress with its lease
   * length {@code L} instead of times (the key expires after twice the lease, and the lease ends
   * one lease before, by the server's clock) and a fence from {@link ServerClock}. Uncapped, a
   * {@code SET NX PX ... GET}; capped ({@code tallyArgs}: the cap and the digest; {@code
   * scriptKeys}: the record, the given-back mark, the tally), {@link LuaScripts#CLAIM_NEW_COUNTED},
   * which counts the record before it sets it, writes nothing when the scope is full, and claims
   * nothing for an owner given back (a script may run late: sent again after {@code NOSCRIPT}).
   * When the key holds a record, it is returned: a completed one answers as the claim script would;
   * any other goes on to the claim script with {@code scriptKeys} and {@code tallyArgs}.
   */
  private CompletableFuture<ClaimResult> claimFresh(
      byte[] recordKey,
      ClaimRequest request,
      String owner,
      long fence,
      byte[][] scriptKeys,
      byte[]... tallyArgs) {
    IdempotencyKey key = request.key();
    long leaseMillis = RedisKeys.millis(request.lease());
    byte[] value =
        new RecordValue.Writer()
            .field('S', "P")
            .field('F', fence)
            .field('O', owner)
            .field('L', leaseMillis)
            .field('P', request.fingerprint().value())
            .field('A', key.scope())
            .field('V', key.value())
            .toBytes();
    // the answer, or null when the key holds a record only the claim script can answer for
    CompletableFuture<ClaimResult> answered;
    if (tallyArgs.length == 0) {
      answered =
          ScriptRunner.command(
                  () -> strings.setGet(recordKey, value, SetArgs.Builder.nx().px(2 * leaseMillis)))
              .thenApply(
                  held ->
                      held == null
                          ? claimed(key, fence, owner, leaseMillis)
                          : found(held, request));
    } else {
      answered =
          scripts
              .listAsync(
                  LuaScripts.CLAIM_NEW_COUNTED,
                  scriptKeys,
                  value,
                  RedisKeys.bytes(2 * leaseMillis),
                  tallyArgs[0],
                  tallyArgs[1])
              .thenCompose(
                  reply ->
                      switch (RecordValue.replyText(reply.get(0))) {
                        case "C" ->
                            CompletableFuture.completedFuture(
                                claimed(key, fence, owner, leaseMillis));
                        case "S" ->
                            CompletableFuture.failedFuture(
                                StoreFullException.scopeCap(request.scopeCap(), key.scope()));
                        case "G" ->
                            CompletableFuture.completedFuture(RecordValue.claim(reply, key, owner));
                        default ->
                            CompletableFuture.completedFuture(
                                found((byte[]) reply.get(1), request));
                      });
    }
    return orElse(answered, () -> claimByScript(scriptKeys, request, owner, tallyArgs));
  }

  private static ClaimResult claimed(
      IdempotencyKey key, long fence, String owner, long leaseMillis) {
    Instant until = Instant.ofEpochMilli(fence / 1_000 + leaseMillis);
    return new ClaimResult.Claimed(new Lease(key, fence, owner, until));
  }

  // A record the SET found: answered when completed, as the script would; else null.
  private @Nullable ClaimResult found(byte[] held, ClaimRequest request) {
    ClaimResult completed = RecordValue.completed(held, request);
    if (completed instanceof ClaimResult.Completed done) {
      replays.remember(request.key().digest(), done.record().expiresAt().toEpochMilli());
    }
    return completed;
  }

  // The claim script; with the tally among the keys (and its two arguments), it counts as well.
  private CompletableFuture<ClaimResult> claimByScript(
      byte[][] scriptKeys, ClaimRequest request, String owner, byte[]... tallyArgs) {
    IdempotencyKey key = request.key();
    byte[][] args = new byte[LuaScripts.CLAIM_ARGS + tallyArgs.length][];
    putClaimArgs(args, 0, request, owner);
    System.arraycopy(tallyArgs, 0, args, LuaScripts.CLAIM_ARGS, tallyArgs.length);
    return scripts
        .listAsync(LuaScripts.CLAIM, scriptKeys, args)
        .thenCompose(
            reply ->
                RecordValue.replyText(reply.get(0)).equals("S")
                    ? CompletableFuture.failedFuture(
                        StoreFullException.scopeCap(request.scopeCap(), key.scope()))
                    : CompletableFuture.completedFuture(answer(reply, key, owner)));
  }

  private ClaimResult answer(List<Object> reply, IdempotencyKey key, String owner) {
    ClaimResult result = RecordValue.claim(reply, key, owner);
    if (result instanceof ClaimResult.Completed completed) {
      replays.remember(key.digest(), completed.record().expiresAt().toEpochMilli());
    }
    return result;
  }

  /**
   * Claims the keys of {@code requests}, all in one hash slot and none capped, with one script:
   * each by the claim script's rules, as if alone. The stage ends with each claim's reply, to be
   * read by {@link #answer(Object, ClaimRequest, String)}.
   *
   * @param owners the new owner of each claim, in the same order
   */
  public CompletableFuture<List<Object>> claimAll(
      List<ClaimRequest> requests, List<String> owners) {
    byte[][] recordKeys = new byte[2 * requests.size()][];
    byte[][] args = new byte[LuaScripts.CLAIM_ARGS * requests.size()][];
    for (int i = 0; i < requests.size(); i++) {
      ClaimRequest request = requests.get(i);
      IdempotencyKey key = request.key();
      recordKeys[2 * i] = keys.record(key);
      recordKeys[2 * i + 1] = keys.givenBack(key, owners.get(i));
      putClaimArgs(args, LuaScripts.CLAIM_ARGS * i, request, owners.get(i));
    }
    return scripts.listAsync(LuaScripts.CLAIM_ALL, recordKeys, args);
  }

  // The claim script's arguments for one claim, from args[at] on.
  private void putClaimArgs(byte[][] args, int at, ClaimRequest request, String owner) {
    IdempotencyKey key = request.key();
    args[at] = RedisKeys.bytes(key.scope());
    args[at + 1] = RedisKeys.bytes(key.value());
    args[at + 2] = RedisKeys.bytes(request.fingerprint().value());
    args[at + 3] = RedisKeys.bytes(RedisKeys.millis(request.lease()));
    args[at + 4] = flag(request.requireIssued());
    args[at + 5] = RedisKeys.bytes(owner);
    args[at + 6] = flag(changes.hasListeners(key.digest()));
  }

  /**
   * One claim's answer in the reply of {@link #claimAll}.
   *
   * @throws IdempotencyStoreException when that claim raised an error in Redis
   */
  @SuppressWarnings("unchecked")
  public ClaimResult answer(Object reply, ClaimRequest request, String owner) {
    List<Object> one = (List<Object>) reply;
    if (!one.isEmpty() && RecordValue.replyText(one.get(0)).equals("E")) {
      throw new IdempotencyStoreException(
          "Redis failed the claim of "
              + request.key()
              + ": "
              + (one.size() > 1 ? RecordValue.replyText(one.get(1)) : "no message"));
    }
    return answer(one, request.key(), owner);
  }

  /**
   * Gives back a claim its caller stopped waiting for (it timed out, or failed on the way back):
   * the record is given up if it is in progress under {@code owner}, and a claim of that owner that
   * reaches Redis only later claims nothing. Sent without waiting on the same connection as the
   * claim, so Redis runs it after the claim even when the claim's answer, or this one's, comes too
   * late for the client: the retry is not refused as in progress until the lease ends. A claim that
   * never reached Redis leaves nothing to give back.
   */
  public void giveBack(IdempotencyKey key, String owner, Duration lease) {
    ScriptRunner.FOLLOW_UP.execute(() -> sendGiveBack(key, owner, lease));
  }

  private void sendGiveBack(IdempotencyKey key, String owner, Duration lease) {
    String digest = key.digest();
    // with its source: its answer may come after Lettuce stopped listening, so a NOSCRIPT from a
    // server that never ran it would be dropped, and the key held for its lease. It also marks the
    // owner given back, for as long as the claim could still arrive (sent again after its own
    // NOSCRIPT): such a late claim then claims nothing.
    long mark = Math.max(2 * RedisKeys.millis(lease), GIVEN_BACK_MARK_MS);
    scripts
        .numberAsyncWithSource(
            LuaScripts.GIVE_BACK,
            new byte[][] {keys.record(key), keys.givenBack(key, owner)},
            RedisKeys.bytes(owner),
            RedisKeys.bytes(mark),
            changeChannel,
            RedisKeys.bytes(digest))
        .whenComplete(
            (given, failure) -> {
              // a token back to ISSUED (2) is still live and still counts
              if (failure == null && given == 1 && owner.startsWith(COUNTED)) {
                stopCounting(key);
              } else if (failure != null) {
                log.debug("no answer to the give-back of {}: {}", key, failure.toString());
              }
            });
  }

  /**
   * Releases a lease: its record is removed, or goes back to ISSUED; a counted record stops
   * counting. Answers whether the lease still matched.
   */
  public CompletableFuture<Boolean> release(Lease lease) {
    IdempotencyKey key = lease.key();
    byte[] recordKey = keys.record(key);
    // the script stops counting the record itself when the tally shares its slot
    byte[] tallyKey = counted(lease) ? tally.tally(key) : null;
    boolean apart = tallyKey != null && !tally.sharesSlot(recordKey, tallyKey);
    byte[][] scriptKeys =
        tallyKey != null && !apart ? new byte[][] {recordKey, tallyKey} : new byte[][] {recordKey};
    return followUp(
        scripts.numberAsync(
            LuaScripts.RELEASE,
            scriptKeys,
            RedisKeys.bytes(lease.fence()),
            RedisKeys.bytes(lease.owner()),
            changeChannel,
            RedisKeys.bytes(key.digest())),
        released -> released == 1 && apart,
        released ->
            released == 1 && apart
                ? stopCounting(key).thenApply(ignored -> true)
                : CompletableFuture.completedFuture(released != 0));
  }

  /** Whether the lease's claim counted its record in its scope's tally. */
  public static boolean counted(Lease lease) {
    return lease.owner().startsWith(COUNTED);
  }

  /**
   * Stops counting a record that was given up. The record is given up even if its count could not
   * be moved (the count then ends by itself), so the stage never fails.
   */
  public CompletableFuture<Void> stopCounting(IdempotencyKey key) {
    return tally
        .remove(key)
        .handle(
            (removed, failure) -> {
              if (failure != null) {
                log.warn(
                    "could not stop counting a released record of {}: {}", key, failure.toString());
              }
              return null;
            });
  }

  /**
   * {@code next} after {@code stage}. When {@code sends} says that {@code next} will send a command
   * and the stage ended on Lettuce's thread, {@code next} runs on {@link ScriptRunner#FOLLOW_UP};
   * otherwise where the stage ended, with no hop.
   */
  private static <T, U> CompletableFuture<U> followUp(
      CompletableFuture<T> stage, Predicate<T> sends, Function<T, CompletableFuture<U>> next) {
    if (stage.isDone()) {
      return stage.thenCompose(next);
    }
    return stage.thenCompose(
        value ->
            sends.test(value)
                ? CompletableFuture.supplyAsync(() -> next.apply(value), ScriptRunner.FOLLOW_UP)
                    .thenCompose(Function.identity())
                : next.apply(value));
  }

  /** {@code stage}'s answer, or when it answered null, the claim {@code next} sends. */
  private static CompletableFuture<ClaimResult> orElse(
      CompletableFuture<ClaimResult> stage, Supplier<CompletableFuture<ClaimResult>> next) {
    return followUp(
        stage,
        answer -> answer == null,
        answer -> answer != null ? CompletableFuture.completedFuture(answer) : next.get());
  }

  private static byte[] flag(boolean b) {
    return RedisKeys.bytes(b ? "1" : "0");
  }
}
