package dev.idem.redis.internal;

import dev.idem.core.IdempotencyStoreException;
import dev.idem.redis.internal.LuaScripts.Script;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisScriptingCommands;
import java.util.List;

/**
 * Calls scripts by SHA and sends the source only when a server answers NOSCRIPT (first use, a
 * restart, a failover, a new Cluster node); that call loads it for every later one. Every Redis
 * failure (unreachable, timed out, script error) becomes an {@link IdempotencyStoreException}.
 */
public final class ScriptRunner {

  private final RedisScriptingCommands<byte[], byte[]> commands;

  public ScriptRunner(RedisScriptingCommands<byte[], byte[]> commands) {
    this.commands = commands;
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

  private <T> T run(Script script, ScriptOutputType type, byte[][] keys, byte[]... args) {
    try {
      try {
        return commands.evalsha(script.sha(), type, keys, args);
      } catch (RedisNoScriptException notLoaded) {
        return commands.eval(script.bytes(), type, keys, args);
      }
    } catch (RedisException e) {
      throw RedisFailures.of(e);
    }
  }
}
