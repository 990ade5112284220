package dev.idem.redis.internal;

import dev.idem.core.IdempotencyException;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.redis.internal.LuaScripts.Script;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Supplier;

/**
 * Calls scripts by SHA and sends the source only when a server answers NOSCRIPT (first use, a
 * restart, a failover, a new Cluster node); that call loads it for every later one. Every Redis
 * failure (unreachable, timed out, script error) becomes an {@link IdempotencyStoreException}.
 */
public final class ScriptRunner {

  /**
   * Where a stage sends a command that follows another's answer. Not on the thread that completed
   * the answer: that is Lettuce's own, sometimes inside its connection's exclusive section (a
   * reconnect failing the commands in flight), where sending spins for ever; and sending may wait
   * on the connection's lock, which an I/O thread must not.
   */
  public static final Executor FOLLOW_UP = ForkJoinPool.commonPool();

  private final RedisScriptingAsyncCommands<byte[], byte[]> async;
  private final Duration timeout;

  public ScriptRunner(RedisBackend backend) {
    this.async = backend.scriptingAsync();
    this.timeout = backend.timeout();
  }

  /**
   * Sends a script that answers a Lua table without waiting; the stage ends with the reply on the
   * client's thread, or fails with the store's exception. A server without the script gets it then.
   */
  public CompletableFuture<List<Object>> listAsync(Script script, byte[] key, byte[]... args) {
    return send(script, ScriptOutputType.MULTI, new byte[][] {key}, args);
  }

  /** As {@link #listAsync(Script, byte[], byte[]...)}, for a script of several keys. */
  public CompletableFuture<List<Object>> listAsync(Script script, byte[][] keys, byte[]... args) {
    return send(script, ScriptOutputType.MULTI, keys, args);
  }

  /** As {@link #listAsync(Script, byte[], byte[]...)}, for a script that answers an integer. */
  public CompletableFuture<Long> numberAsync(Script script, byte[] key, byte[]... args) {
    return send(script, ScriptOutputType.INTEGER, new byte[][] {key}, args);
  }

  /** As {@link #numberAsync(Script, byte[], byte[]...)}, for a script of several keys. */
  public CompletableFuture<Long> numberAsync(Script script, byte[][] keys, byte[]... args) {
    return send(script, ScriptOutputType.INTEGER, keys, args);
  }

  /**
   * As {@link #numberAsync}, but always sent with its source ({@code EVAL}), never by its hash: for
   * a command whose answer nobody may be listening for when it comes, so that a server that does
   * not know the script yet (fresh, restarted, failed over) still runs it instead of answering
   * NOSCRIPT to nobody.
   */
  public CompletableFuture<Long> numberAsyncWithSource(
      Script script, byte[][] keys, byte[]... args) {
    return ScriptRunner.<Long>sent(
            () -> async.eval(script.bytes(), ScriptOutputType.INTEGER, keys, args))
        .exceptionallyCompose(failure -> CompletableFuture.failedFuture(failed(failure)));
  }

  private <T> CompletableFuture<T> send(
      Script script, ScriptOutputType type, byte[][] keys, byte[]... args) {
    CompletableFuture<T> sent = sent(() -> async.evalsha(script.sha(), type, keys, args));
    return sent.exceptionallyComposeAsync(
        failure ->
            cause(failure) instanceof RedisNoScriptException
                ? sent(() -> async.<T>eval(script.bytes(), type, keys, args))
                    .exceptionallyCompose(again -> CompletableFuture.failedFuture(failed(again)))
                : CompletableFuture.failedFuture(failed(failure)),
        FOLLOW_UP);
  }

  /** As {@link #sent}, failing as the store fails: with {@link #failed}'s exception. */
  public static <T> CompletableFuture<T> command(Supplier<RedisFuture<T>> sending) {
    return ScriptRunner.<T>sent(sending)
        .exceptionallyCompose(failure -> CompletableFuture.failedFuture(failed(failure)));
  }

  /** The command {@code sending} sends, as a stage; a refusal to send is its failure. */
  public static <T> CompletableFuture<T> sent(Supplier<RedisFuture<T>> sending) {
    try {
      return sending.get().toCompletableFuture();
    } catch (RedisException e) {
      return CompletableFuture.failedFuture(RedisFailures.of(e));
    }
  }

  /** What a Redis stage failed with, as the store throws it. */
  public static RuntimeException failed(Throwable failure) {
    Throwable cause = cause(failure);
    if (cause instanceof IdempotencyException known) {
      return known;
    }
    if (cause instanceof RedisException e) {
      return RedisFailures.of(e);
    }
    // a connection's own failure (a reset), wrapped as Lettuce's blocking calls wrap it
    return RedisFailures.of(new RedisException(cause));
  }

  private static Throwable cause(Throwable failure) {
    return failure instanceof CompletionException && failure.getCause() != null
        ? failure.getCause()
        : failure;
  }

  /** Runs a script that answers a Lua table. */
  public List<Object> list(Script script, byte[] key, byte[]... args) {
    return run(script, ScriptOutputType.MULTI, new byte[][] {key}, args);
  }

  /** Runs a script on several keys of one slot that answers a Lua table. */
  public List<Object> list(Script script, byte[][] keys, byte[]... args) {
    return run(script, ScriptOutputType.MULTI, keys, args);
  }

  /** Runs a script that answers an integer. */
  public long number(Script script, byte[] key, byte[]... args) {
    return number(script, new byte[][] {key}, args);
  }

  /** Runs a script on several keys of one slot that answers an integer. */
  public long number(Script script, byte[][] keys, byte[]... args) {
    Long n = run(script, ScriptOutputType.INTEGER, keys, args);
    return n;
  }

  // Waits at most the backend's bound, whatever the client's command timeout.
  private <T> T run(Script script, ScriptOutputType type, byte[][] keys, byte[]... args) {
    return RecordClaims.await(send(script, type, keys, args), timeout);
  }
}
