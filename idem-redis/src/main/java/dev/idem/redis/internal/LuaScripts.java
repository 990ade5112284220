package dev.idem.redis.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Every Lua script of the Redis backend, in one place. Each operation is one script, so it is one
 * round trip and atomic. Record times come from {@code redis.call('TIME')}, in milliseconds; lock
 * leases are relative expiries ({@code PX}), which Redis ends by its own clock. Key content never
 * appears in a script: scripts get the hashed key in {@code KEYS} and data in {@code ARGV}.
 *
 * <p>A record is one hash: {@code st} state (I issued, P in progress, C completed), {@code fp}
 * fingerprint, {@code f} fence, {@code o} owner, {@code lu} lease end, {@code ex} logical expiry,
 * {@code t} began as a token, {@code te} token end, {@code ok}/{@code out} outcome kind and bytes,
 * {@code s}/{@code v} scope and value, {@code w} someone waits for a change. The hash expires at
 * {@code ex} ({@code PEXPIREAT}), so nothing outlives its record.
 */
public final class LuaScripts {

  private LuaScripts() {}

  private static final String NOW =
      """
      local clock = redis.call('TIME')
      local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
      """;

  // The record fields a claim reads, and the subset it answers with (see RecordReplies).
  private static final String READ =
      """
      local r = redis.call('HMGET', KEYS[1], 'st', 'fp', 'f', 'o', 'lu', 'ex', 't', 'te', 'ok',
        'out', 'w')
      local function reply(code)
        return {code, r[1], r[2], r[3], r[5], r[6], r[7], r[9], r[10]}
      end
      local live = r[1] and now < tonumber(r[6])
      """;

  /**
   * KEYS: record. ARGV: scope, value, fingerprint, lease ms, require issued (0/1), new owner, mark
   * waiter (0/1). Answers {@code {'C', fence, leaseUntil}} when claimed, {@code {'U'}} for an
   * unknown token, else {@code {code, record...}} with code I (in progress), D (done), M
   * (mismatch). Follows the in-memory store's Claim rules exactly.
   */
  public static final Script CLAIM =
      new Script(
          NOW
              + READ
              + """
              local token = live and r[7] == '1'
              if ARGV[5] == '1' and not token then return {'U'} end
              local lease = tonumber(ARGV[4])
              local function claim(fence, tok, tokenEnd)
                local leaseUntil = now + lease
                local expires = leaseUntil + lease
                if tok and tokenEnd and tokenEnd > expires then expires = tokenEnd end
                redis.call('HSET', KEYS[1], 'st', 'P', 'fp', ARGV[3], 'f', fence, 'o', ARGV[6],
                  'lu', leaseUntil, 'ex', expires, 's', ARGV[1], 'v', ARGV[2])
                if r[9] or r[10] then redis.call('HDEL', KEYS[1], 'ok', 'out') end
                if not tok and (r[7] or r[8]) then redis.call('HDEL', KEYS[1], 't', 'te') end
                redis.call('PEXPIREAT', KEYS[1], expires)
                return {'C', fence, leaseUntil}
              end
              local fence = tonumber(r[3]) or 0
              if not live then return claim(fence + 1, false, nil) end
              if r[1] == 'I' then return claim(fence + 1, true, tonumber(r[8])) end
              local fp = r[2] or ''
              local same = ARGV[3] == '' or fp == '' or fp == ARGV[3]
              if r[1] == 'P' then
                if now >= tonumber(r[5]) then return claim(fence + 1, token, tonumber(r[8])) end
                if not same then return reply('M') end
                if ARGV[7] == '1' then redis.call('HSET', KEYS[1], 'w', '1') end
                return reply('I')
              end
              if same then return reply('D') end
              return reply('M')
              """);

  /** KEYS: record. ARGV: none. Answers {@code {}} when absent or expired, else the record. */
  public static final Script FIND =
      new Script(
          NOW
              + READ
              + """
              if not live then return {} end
              return reply('F')
              """);

  private static final String OWNED =
      """
      local r = redis.call('HMGET', KEYS[1], 'st', 'f', 'o', 'w', 't', 'te')
      if r[1] ~= 'P' or tonumber(r[2]) ~= tonumber(ARGV[1]) or r[3] ~= ARGV[2] then
        return 0
      end
      """;

  // Wakes waiters on other nodes, but only when one of them marked the record: most completions
  // have nobody waiting and then cost no message. In Cluster a PUBLISH reaches every node.
  private static final String NOTIFY =
      """
      local function notify()
        if r[4] then
          redis.call('HDEL', KEYS[1], 'w')
          redis.call('PUBLISH', ARGV[#ARGV - 1], ARGV[#ARGV])
        end
      end
      """;

  /**
   * KEYS: record. ARGV: fence, owner, retention ms, kind (S/F), payload, channel, digest. Answers 1
   * when stored, 0 when the lease no longer matches.
   */
  public static final Script COMPLETE =
      new Script(
          NOW
              + OWNED
              + NOTIFY
              + """
              local expires = now + tonumber(ARGV[3])
              redis.call('HSET', KEYS[1], 'st', 'C', 'ok', ARGV[4], 'out', ARGV[5], 'ex', expires)
              redis.call('HDEL', KEYS[1], 'o', 'lu')
              redis.call('PEXPIREAT', KEYS[1], expires)
              notify()
              return 1
              """);

  /**
   * KEYS: record. ARGV: fence, owner, channel, digest. Removes the record, or puts a token that has
   * not expired back to ISSUED with its original end. Answers 1, or 0 when not owned.
   */
  public static final Script RELEASE =
      new Script(
          NOW
              + OWNED
              + NOTIFY
              + """
              local tokenEnd = tonumber(r[6])
              if r[5] == '1' and tokenEnd and now < tokenEnd then
                redis.call('HSET', KEYS[1], 'st', 'I', 'ex', tokenEnd)
                redis.call('HDEL', KEYS[1], 'fp', 'o', 'lu', 'ok', 'out')
                redis.call('PEXPIREAT', KEYS[1], tokenEnd)
                notify()
              else
                notify()
                redis.call('DEL', KEYS[1])
              end
              return 1
              """);

  /** KEYS: record. ARGV: fence, owner, lease ms. Answers the new lease end, or 0 when not owned. */
  public static final Script RENEW =
      new Script(
          NOW
              + OWNED
              + """
              local lease = tonumber(ARGV[3])
              local leaseUntil = now + lease
              local expires = leaseUntil + lease
              local tokenEnd = tonumber(r[6])
              if r[5] == '1' and tokenEnd and tokenEnd > expires then expires = tokenEnd end
              redis.call('HSET', KEYS[1], 'lu', leaseUntil, 'ex', expires)
              redis.call('PEXPIREAT', KEYS[1], expires)
              return leaseUntil
              """);

  /**
   * KEYS: record. ARGV: ttl ms, scope, value. Creates an ISSUED record unless a live one exists; an
   * expired one's fence carries over. Answers 1 when issued, else 0.
   */
  public static final Script ISSUE =
      new Script(
          NOW
              + """
              local r = redis.call('HMGET', KEYS[1], 'st', 'ex', 'f')
              if r[1] and now < tonumber(r[2]) then return 0 end
              local expires = now + tonumber(ARGV[1])
              redis.call('DEL', KEYS[1])
              redis.call('HSET', KEYS[1], 'st', 'I', 'f', tonumber(r[3]) or 0, 't', '1',
                'te', expires, 'ex', expires, 's', ARGV[2], 'v', ARGV[3])
              redis.call('PEXPIREAT', KEYS[1], expires)
              return 1
              """);

  /**
   * KEYS: lease, fence, waiter mark. ARGV: owner, lease ms, lease + fence retention ms, mark waiter
   * (0/1). A lock is three keys in one slot: the lease ({@code SET NX PX}, holding the owner, gone
   * when the lease ends), the fence counter (expires a fence retention after the last lease) and,
   * while someone waits, a mark that lives no longer than the holder's lease. No clock is read:
   * Redis ends the lease itself. Answers {@code {1, fence}} when taken, {@code {0, ms left on the
   * holder's lease}} when held.
   */
  public static final Script LOCK =
      new Script(
          """
          if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
            local fence = redis.call('INCR', KEYS[2])
            redis.call('PEXPIRE', KEYS[2], ARGV[3])
            return {1, fence}
          end
          if ARGV[4] ~= '1' then return {0, 0} end
          local left = redis.call('PTTL', KEYS[1])
          if left > 0 then redis.call('SET', KEYS[3], '1', 'PX', left) end
          return {0, left}
          """);

  /**
   * KEYS: lease, fence. ARGV: owner, lease ms, lease + fence retention ms. Answers 1 if renewed,
   * else 0.
   */
  public static final Script LOCK_RENEW =
      new Script(
          """
          if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
          redis.call('PEXPIRE', KEYS[1], ARGV[2])
          redis.call('PEXPIRE', KEYS[2], ARGV[3])
          return 1
          """);

  /**
   * KEYS: lease, waiter mark. ARGV: owner, channel, lock id. Releases the lock if this owner holds
   * it (the fence counter stays) and, if someone marked it, wakes the waiters. Deleting both keys
   * in one {@code DEL} tells from its count whether the mark was there. Answers 1 if released, else
   * 0.
   */
  public static final Script UNLOCK =
      new Script(
          """
          if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
          if redis.call('DEL', KEYS[1], KEYS[2]) > 1 then
            redis.call('PUBLISH', ARGV[2], ARGV[3])
          end
          return 1
          """);

  /** A script's source and the SHA-1 that {@code EVALSHA} calls it by. */
  public record Script(String source, String sha) {

    Script(String source) {
      this(source, sha1(source));
    }

    /** The source as bytes, for {@code EVAL}. */
    public byte[] bytes() {
      return source.getBytes(StandardCharsets.UTF_8);
    }

    private static String sha1(String source) {
      try {
        MessageDigest sha = MessageDigest.getInstance("SHA-1");
        return HexFormat.of().formatHex(sha.digest(source.getBytes(StandardCharsets.UTF_8)));
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("every Java runtime has SHA-1", e);
      }
    }
  }
}
