package dev.idem.redis;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.resume.ResumeEntry;
import dev.idem.core.resume.ResumeLog;
import dev.idem.redis.internal.Connect;
import dev.idem.redis.internal.EvictionCheck;
import dev.idem.redis.internal.LuaScripts;
import dev.idem.redis.internal.LuaScripts.Script;
import dev.idem.redis.internal.RedisBackend;
import dev.idem.redis.internal.RedisKeys;
import dev.idem.redis.internal.ScriptRunner;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link ResumeLog} on Redis, standalone or Cluster, by the server's clock. An entry is a hash
 * that expires with it; an operation keeps the ids of its pending entries in a sorted set by due
 * time and those of its abandoned ones in another, all under the digest of the operation's name as
 * their hash tag, so that each call is one script in one slot. An id whose entry expired leaves its
 * set when a completer comes across it, so {@link #purgeExpired} has nothing to do.
 *
 * <p>Like the store, the log needs a server that never evicts keys by itself ({@code
 * maxmemory-policy noeviction}): an evicted entry is a call no completer finishes.
 */
public final class RedisResumeLog implements ResumeLog, AutoCloseable {

  private static final int FIELDS = 7;

  private final RedisBackend backend;
  private final ScriptRunner scripts;
  private final RedisKeys keys;

  private final boolean ownsBackend;

  private RedisResumeLog(RedisBackend backend, String keyPrefix, boolean ownsBackend) {
    this.keys = new RedisKeys(keyPrefix);
    this.backend = backend;
    this.scripts = new ScriptRunner(backend);
    this.ownsBackend = ownsBackend;
  }

  private static RedisResumeLog owning(RedisBackend backend, String keyPrefix) {
    try {
      RedisResumeLog log = new RedisResumeLog(backend, keyPrefix, true);
      EvictionCheck.warnUnlessNoEviction(backend, "RedisResumeLog");
      return log;
    } catch (RuntimeException e) {
      backend.close();
      throw e;
    }
  }

  /** A log on a store's backend, which the store closes. */
  static RedisResumeLog sharing(RedisBackend backend, String keyPrefix) {
    return new RedisResumeLog(backend, keyPrefix, false);
  }

  /** A log on a standalone Redis with the default prefix. */
  public static RedisResumeLog create(RedisClient client) {
    return create(client, RedisKeys.DEFAULT_PREFIX);
  }

  /**
   * A log on a standalone Redis.
   *
   * @param keyPrefix put in front of every key; must not contain braces
   */
  public static RedisResumeLog create(RedisClient client, String keyPrefix) {
    new RedisKeys(keyPrefix);
    return owning(Connect.standalone(client), keyPrefix);
  }

  /** A log on a Redis Cluster with the default prefix. */
  public static RedisResumeLog create(RedisClusterClient client) {
    return create(client, RedisKeys.DEFAULT_PREFIX);
  }

  /** A log on a Redis Cluster; see {@link #create(RedisClient, String)}. */
  public static RedisResumeLog create(RedisClusterClient client, String keyPrefix) {
    new RedisKeys(keyPrefix);
    return owning(Connect.cluster(client), keyPrefix);
  }

  @Override
  public void remember(ResumeEntry entry, Duration delay, Duration keepFor) {
    byte[][] log = log(entry.operation());
    scripts.number(
        LuaScripts.RESUME_REMEMBER,
        new byte[][] {entryKey(log, entry), log[0], log[1]},
        RedisKeys.bytes(entry.id()),
        RedisKeys.bytes(entry.key().scope()),
        RedisKeys.bytes(entry.key().value()),
        RedisKeys.bytes(entry.fingerprint().value()),
        entry.input(),
        RedisKeys.bytes(Math.max(0, delay.toMillis())),
        RedisKeys.bytes(RedisKeys.millis(keepFor)));
  }

  @Override
  public List<ResumeEntry> takeDue(String operation, Duration hold, int limit) {
    byte[][] log = log(operation);
    return entries(
        operation,
        scripts.list(
            LuaScripts.RESUME_TAKE,
            log[0],
            RedisKeys.bytes(RedisKeys.millis(hold)),
            RedisKeys.bytes(limit),
            log[2]));
  }

  @Override
  public boolean failed(ResumeEntry entry, Duration delay) {
    byte[][] log = log(entry.operation());
    return scripts.number(
            LuaScripts.RESUME_FAILED,
            new byte[][] {entryKey(log, entry), log[0]},
            RedisKeys.bytes(entry.id()),
            RedisKeys.bytes(Math.max(0, delay.toMillis())),
            RedisKeys.bytes(entry.fingerprint().value()))
        == 1;
  }

  @Override
  public boolean abandon(ResumeEntry entry) {
    return change(LuaScripts.RESUME_ABANDON, entry);
  }

  @Override
  public List<ResumeEntry> abandoned(String operation, int limit) {
    byte[][] log = log(operation);
    return entries(
        operation,
        scripts.list(LuaScripts.RESUME_ABANDONED, log[1], RedisKeys.bytes(limit), log[2]));
  }

  @Override
  public boolean reopen(ResumeEntry entry) {
    return change(LuaScripts.RESUME_REOPEN, entry);
  }

  @Override
  public boolean forget(ResumeEntry entry) {
    return change(LuaScripts.RESUME_FORGET, entry);
  }

  /** Always 0: entries expire by themselves. */
  @Override
  public int purgeExpired(int limit) {
    return 0;
  }

  /**
   * Closes this log's connections (none, for a store's {@link RedisIdempotencyStore#resumeLog()});
   * the Lettuce client stays open.
   */
  @Override
  public void close() {
    if (ownsBackend) {
      backend.close();
    }
  }

  private boolean change(Script script, ResumeEntry entry) {
    byte[][] log = log(entry.operation());
    return scripts.number(
            script,
            new byte[][] {entryKey(log, entry), log[0], log[1]},
            RedisKeys.bytes(entry.id()),
            RedisKeys.bytes(entry.fingerprint().value()))
        == 1;
  }

  private byte[][] log(String operation) {
    return keys.resumeLog(RedisKeys.digest(operation));
  }

  private static byte[] entryKey(byte[][] log, ResumeEntry entry) {
    return RedisKeys.bytes(new String(log[2], StandardCharsets.UTF_8) + entry.id());
  }

  private static List<ResumeEntry> entries(String operation, List<Object> reply) {
    List<ResumeEntry> out = new ArrayList<>(reply.size() / FIELDS);
    for (int i = 0; i + FIELDS <= reply.size(); i += FIELDS) {
      out.add(
          new ResumeEntry(
              operation,
              IdempotencyKey.of(text(reply.get(i + 1)), text(reply.get(i + 2))),
              new Fingerprint(text(reply.get(i + 3))),
              (byte[]) reply.get(i + 4),
              Integer.parseInt(text(reply.get(i + 5))),
              "1".equals(text(reply.get(i + 6)))));
    }
    return out;
  }

  private static String text(Object field) {
    return new String((byte[]) field, StandardCharsets.UTF_8);
  }
}
