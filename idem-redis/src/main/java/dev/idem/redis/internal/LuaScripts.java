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
 * <p>A record is one string value in the form of {@link RecordValue}, which the scripts read with
 * {@code fields} and write with {@code encode}. Every write sets the key's expiry with the value
 * ({@code SET ... PXAT}, or {@code PX} for a completion), so nothing outlives its record. Every
 * claim of a key that holds a record comes here, so that its fence comes from the record and the
 * server's clock. Records claimed with a plain {@code SET NX PX} (a key that held none, see {@link
 * RecordClaims}) carry their lease length {@code L} instead of times; the scripts take their lease
 * end and expiry from the key's expiry ({@code PEXPIRETIME}).
 *
 * <p>Longer than 500 lines because every script of the backend lives here (records, locks, the
 * resume log), where the rules they share ({@code NOW}, {@code FIELDS}, {@code READ}) are written
 * once and a reader finds every server-side step of Idem's in one file; each script is short.
 */
public final class LuaScripts {

  private LuaScripts() {}

  // now in ms; nowMicros, the floor of every fence, in microseconds (exact in a Lua double)
  private static final String NOW =
      """
      local clock = redis.call('TIME')
      local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
      local nowMicros = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
      """;

  // RecordValue's form: name letter, byte length, ':', bytes, in RecordValue's order.
  private static final String FIELDS =
      """
      local function fields(v)
        local r, i, n = {}, 1, #v
        while i <= n do
          local c = string.find(v, ':', i + 1, true)
          local len = c and tonumber(string.sub(v, i + 1, c - 1))
          if not len or len < 0 or c + len > n then error('idem: malformed record') end
          r[string.sub(v, i, i)] = string.sub(v, c + 1, c + len)
          i = c + len + 1
        end
        return r
      end
      local order = {'S', 'F', 'O', 'L', 'U', 'W', 'K', 'B', 'E', 'X', 'P', 'T', 'N', 'A', 'V'}
      local function encode(r)
        local out = {}
        for _, name in ipairs(order) do
          local x = r[name]
          if x then
            if type(x) == 'number' then x = string.format('%.0f', x) end
            out[#out + 1] = name .. #x .. ':' .. x
          end
        end
        return table.concat(out)
      end
      """;

  // The record, its lease end and its logical expiry. A record an earlier version claimed by a
  // plain SET carries its lease length instead: it ends with its key, and its lease one lease
  // length before. A released
  // record (S = R) only keeps its fence, so that the next claim's is greater: it is never live.
  private static final String READ =
      """
      local v = redis.call('GET', KEYS[1])
      local r = v and fields(v) or {}
      local lu, ex = tonumber(r.U), tonumber(r.E)
      if v and not ex then
        ex = redis.call('PEXPIRETIME', KEYS[1])
        if not lu and r.L then lu = ex - tonumber(r.L) end
      end
      local live = v and r.S ~= 'R' and now < ex
      local function nextFence()
        return math.max((tonumber(r.F) or 0) + 1, nowMicros)
      end
      local function reply(code)
        return {code, v, lu or false, ex}
      end
      """;

  // A scope's tally: a sorted set of the digests of its live records, scored by when each ends,
  // that expires with its last one. count adds a record unless the scope holds cap others (1 when
  // counted, newly or already; 0 when refused); ended members are dropped only when the set looks
  // full, so a count that fits costs three commands. A counted record's end only moves later here:
  // a repeat's claim does not shorten a stored answer's count. recount sets a counted record's end
  // (a completion's retention, shorter or longer than its claim's); uncount stops counting it.
  private static final String TALLY =
      """
      local function keepTally(t, ends, alone)
        if alone then
          redis.call('PEXPIREAT', t, ends)
        else
          redis.call('PEXPIREAT', t, ends, 'GT')
        end
      end
      local function count(t, member, ends, cap, now)
        local added = redis.call('ZADD', t, 'GT', ends, member)
        local held = redis.call('ZCARD', t)
        if added == 1 and held > cap then
          redis.call('ZREMRANGEBYSCORE', t, '-inf', now)
          held = redis.call('ZCARD', t)
          if held > cap then
            redis.call('ZREM', t, member)
            return 0
          end
        end
        keepTally(t, ends, added == 1 and held == 1)
        return 1
      end
      local function recount(t, member, ends)
        if redis.call('ZADD', t, 'XX', 'CH', ends, member) == 1 then keepTally(t, ends, false) end
      end
      local function uncount(t, member)
        return redis.call('ZREM', t, member)
      end
      """;

  private static final String CLAIM_ONE =
      """
      if redis.call('EXISTS', KEYS[2]) == 1 then return {'G'} end
      local token = live and r.T == '1'
      if ARGV[5] == '1' and not token then return {'U'} end
      local lease = tonumber(ARGV[4])
      local function claim(fence, tok, tokenEnd)
        local leaseUntil = now + lease
        local expires = leaseUntil + lease
        if tok and tokenEnd and tokenEnd > expires then expires = tokenEnd end
        local c = {S = 'P', F = fence, O = ARGV[6], U = leaseUntil, E = expires}
        -- A duplicate waiting on the owner taken over still waits for this claim's end.
        if r.S == 'P' and r.W then c.W = r.W end
        if ARGV[3] ~= '' then c.P = ARGV[3] end
        if ARGV[1] ~= '' then c.A = ARGV[1] end
        if ARGV[2] ~= '' then c.V = ARGV[2] end
        if tok then
          c.T = '1'
          c.N = tokenEnd
        end
        -- a token's use is never refused: the token was counted when it was issued
        local cap = tok and math.huge or tonumber(ARGV[8])
        if KEYS[3] and count(KEYS[3], ARGV[9], expires, cap, now) == 0 then return {'S'} end
        redis.call('SET', KEYS[1], encode(c), 'PXAT', expires)
        return {'C', fence, leaseUntil}
      end
      if not live then return claim(nextFence(), false, nil) end
      if r.S == 'I' then return claim(nextFence(), true, tonumber(r.N)) end
      local fp = r.P or ''
      local same = ARGV[3] == '' or fp == '' or fp == ARGV[3]
      if r.S == 'P' then
        if not same then return reply('M') end
        if now >= lu then return claim(nextFence(), token, tonumber(r.N)) end
        if ARGV[7] == '1' and not r.W then
          r.W = '1'
          redis.call('SET', KEYS[1], encode(r), 'KEEPTTL')
        end
        return reply('I')
      end
      if same then return reply('D') end
      return reply('M')
      """;

  /**
   * KEYS: record, the given-back mark of the new owner, and the scope's tally for a capped claim
   * whose tally shares the record's hash slot. ARGV: scope, value, fingerprint, lease ms, require
   * issued (0/1), new owner, mark waiter (0/1), and with a tally the cap and the record's digest.
   * Answers {@code {'G'}} when that owner's caller already gave the claim back (it comes late: sent
   * again after NOSCRIPT), {@code {'C', fence, leaseUntil}} when claimed, {@code {'U'}} for an
   * unknown token, {@code {'S'}} when the claim would have made a record live in a scope that holds
   * the cap of others (nothing written), else {@code {code, value, leaseUntil, expiresAt}} with
   * code I (in progress), D (done), M (mismatch), by the rules of {@link
   * dev.idem.core.store.ClaimVerdict}, which the store contract checks it against. The fence is the
   * greater of the record's fence + 1 and the server's clock in microseconds. A repeat (in
   * progress, done) is answered whatever the tally holds.
   */
  public static final Script CLAIM = new Script(NOW + FIELDS + READ + TALLY + CLAIM_ONE);

  /**
   * KEYS: record, the given-back mark of the new owner, the scope's tally (all in the record's hash
   * slot). ARGV: the record in progress as {@link RecordValue} writes it (with its lease length
   * {@code L}, as a plain {@code SET} claim writes it), its expiry in ms (twice the lease), the
   * cap, the record's digest. The capped claim of a key that holds no record: the record's value
   * comes encoded, so no Lua reads or writes a record here. Answers {@code {'C'}} when counted and
   * set, {@code {'S'}} when the scope holds the cap of others (nothing written), {@code {'G'}} when
   * that owner's caller already gave the claim back (it comes late: sent again after NOSCRIPT), and
   * {@code {'H', value}} when the key holds a record, which only {@link #CLAIM} answers for
   * (nothing written).
   */
  public static final Script CLAIM_NEW_COUNTED =
      new Script(
          TALLY
              + """
              if redis.call('EXISTS', KEYS[2]) == 1 then return {'G'} end
              local held = redis.call('GET', KEYS[1])
              if held then return {'H', held} end
              local clock = redis.call('TIME')
              local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
              local px = tonumber(ARGV[2])
              if count(KEYS[3], ARGV[4], now + px, tonumber(ARGV[3]), now) == 0 then
                return {'S'}
              end
              redis.call('SET', KEYS[1], ARGV[1], 'PX', px)
              return {'C'}
              """);

  /** The arguments of one claim in {@link #CLAIM_ALL}: {@link #CLAIM}'s. */
  public static final int CLAIM_ARGS = 7;

  /**
   * {@link #CLAIM} for several keys of one hash slot at once. KEYS: each claim's two keys, claim
   * after claim. ARGV: each claim's {@value #CLAIM_ARGS} arguments, claim after claim. Answers a
   * list of {@link #CLAIM}'s answers, in order; a claim that raised an error answers {@code {'E',
   * message}} in its place, the others being made as if alone.
   */
  public static final Script CLAIM_ALL =
      new Script(
          NOW
              + FIELDS
              + TALLY
              + "local function claimOne(KEYS, ARGV)\n"
              + READ
              + CLAIM_ONE
              + """
              end
              local out, per = {}, %d
              for i = 1, #KEYS / 2 do
                local a = {}
                for j = 1, per do a[j] = ARGV[(i - 1) * per + j] end
                local ok, answer = pcall(claimOne, {KEYS[2 * i - 1], KEYS[2 * i]}, a)
                if ok then
                  out[i] = answer
                else
                  out[i] = {'E', type(answer) == 'table' and answer.err or tostring(answer)}
                end
              end
              return out
              """
                  .formatted(CLAIM_ARGS));

  /**
   * KEYS: record. ARGV: none. Answers {@code {}} when absent or expired, else {@code {'F', value,
   * leaseUntil, expiresAt}}.
   */
  public static final Script FIND =
      new Script(
          NOW
              + FIELDS
              + READ
              + """
              if not live then return {} end
              return reply('F')
              """);

  private static final String OWNED =
      """
      local v = redis.call('GET', KEYS[1])
      if not v then return 0 end
      local r = fields(v)
      if r.S ~= 'P' or tonumber(r.F) ~= tonumber(ARGV[1]) or r.O ~= ARGV[2] then
        return 0
      end
      """;

  // Wakes waiters on other nodes, but only when one of them marked the record: most completions
  // have nobody waiting and then cost no message. The mark goes with the value the caller
  // replaces. In Cluster a PUBLISH reaches every node.
  private static final String NOTIFY =
      """
      local function notify()
        if r.W then redis.call('PUBLISH', ARGV[#ARGV - 1], ARGV[#ARGV]) end
      end
      """;

  /**
   * KEYS: record, and the scope's tally for a counted claim whose tally shares the record's hash
   * slot. ARGV: the head an in-progress record of this lease starts with ({@code S}, {@code F},
   * {@code O} fields), the fields of the completed record ({@code F}, {@code K}, {@code B}, {@code
   * X}), retention ms, channel, digest. Answers 1 when stored (and then the record counts in the
   * tally for its retention), 0 when the lease no longer matches. The retention is a relative
   * expiry ({@code PX}), so Redis counts it from now by its own clock and the script needs neither
   * {@code TIME} nor number formatting unless it moves a count; {@code X}, the end by the caller's
   * clock, is only for reading (see {@link RecordValue}).
   *
   * <p>The hot path of every call, so it parses no more than it must: writers keep RecordValue's
   * order, so a record that starts with the lease's head is in progress under that fence and owner,
   * its lease fields and waiter mark follow, and the fields it keeps (fingerprint, token, scope and
   * value) end it and are copied over unread.
   */
  public static final Script COMPLETE =
      new Script(
          TALLY
              + """
          local v = redis.call('GET', KEYS[1])
          local head = ARGV[1]
          if not v or string.sub(v, 1, #head) ~= head then return 0 end
          local i, waited = #head + 1, false
          while true do
            local name = string.sub(v, i, i)
            if name ~= 'L' and name ~= 'U' and name ~= 'E' and name ~= 'W' then break end
            if name == 'W' then waited = true end
            local c = string.find(v, ':', i + 1, true)
            local len = c and tonumber(string.sub(v, i + 1, c - 1))
            if not len or len < 0 or c + len > #v then error('idem: malformed record') end
            i = c + len + 1
          end
          redis.call('SET', KEYS[1], 'S1:C' .. ARGV[2] .. string.sub(v, i), 'PX', ARGV[3])
          if waited then redis.call('PUBLISH', ARGV[4], ARGV[5]) end
          if KEYS[2] then
            local clock = redis.call('TIME')
            local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
            recount(KEYS[2], ARGV[5], now + tonumber(ARGV[3]))
          end
          return 1
          """);

  /**
   * {@link #COMPLETE} for the unstored mark ({@link dev.idem.core.store.Outcome.Kind#UNSTORED}),
   * allowed to write when Redis is out of memory ({@code allow-oom}): the mark is a few bytes in
   * place of the in-progress record, and without it a completion refused for memory would leave the
   * key to be taken over, and the work run again, once its lease ends.
   */
  public static final Script COMPLETE_MARK =
      new Script("#!lua flags=allow-oom\n" + COMPLETE.source());

  // Gives the record r up: an in-progress one that began as a token that has not expired goes back
  // to ISSUED with its original end (answers 2); any other keeps only its fence, until the key
  // would have expired anyway (answers 1), so that the next claim's fence is greater even when it
  // comes from a process whose clock is behind. Wakes the waiters either way.
  private static final String GIVE_UP =
      """
      local function giveUp()
        local tokenEnd = tonumber(r.N)
        if r.S == 'P' and r.T == '1' and tokenEnd and now < tokenEnd then
          local c = {S = 'I', F = r.F, T = '1', N = tokenEnd, E = tokenEnd, A = r.A, V = r.V}
          redis.call('SET', KEYS[1], encode(c), 'PXAT', tokenEnd)
          notify()
          return 2
        end
        redis.call('SET', KEYS[1], encode({S = 'R', F = r.F}), 'KEEPTTL')
        notify()
        return 1
      end
      """;

  /**
   * KEYS: record, and the scope's tally for a counted claim whose tally shares the record's hash
   * slot. ARGV: fence, owner, channel, digest. Gives an owned record up: answers 2 when it went
   * back to ISSUED as a token (still counted), 1 when only its fence stays (a released record,
   * never live, no longer counted), 0 when not owned.
   */
  public static final Script RELEASE =
      new Script(
          FIELDS
              + OWNED
              + NOW
              + NOTIFY
              + GIVE_UP
              + TALLY
              + """
              local given = giveUp()
              if given == 1 and KEYS[2] then uncount(KEYS[2], ARGV[4]) end
              return given
              """);

  /**
   * KEYS: record, the given-back mark of the owner. ARGV: owner, mark ms, channel, digest. Gives up
   * the in-progress record of a claim whose caller stopped waiting for its answer, known by its
   * owner alone (the fence came from the script, which never answered), and marks the owner given
   * back, so that the claim, should it reach Redis only now, claims nothing. Answers as {@link
   * #RELEASE}.
   */
  public static final Script GIVE_BACK =
      new Script(
          FIELDS
              + """
              redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
              local v = redis.call('GET', KEYS[1])
              if not v then return 0 end
              local r = fields(v)
              if r.S ~= 'P' or r.O ~= ARGV[1] then return 0 end
              """
              + NOW
              + NOTIFY
              + GIVE_UP
              + "return giveUp()\n");

  /**
   * KEYS: record, then the records of its steps to delete with it. ARGV: state letter (I, P or C),
   * fence, channel, digest. An operator's release or removal: gives the record up as {@link
   * #RELEASE} does, whoever owns it, while it is live in that state with that fence, and then
   * deletes the other keys. Answers as {@link #RELEASE}: 2, 1, or 0 when no such record (and
   * nothing deleted).
   */
  public static final Script EVICT =
      new Script(
          NOW
              + FIELDS
              + READ
              + NOTIFY
              + GIVE_UP
              + """
              if not live or r.S ~= ARGV[1] or tonumber(r.F) ~= tonumber(ARGV[2]) then return 0 end
              local given = giveUp()
              for i = 2, #KEYS do redis.call('DEL', KEYS[i]) end
              return given
              """);

  /** KEYS: record. ARGV: fence, owner, lease ms. Answers the new lease end, or 0 when not owned. */
  public static final Script RENEW =
      new Script(
          FIELDS
              + OWNED
              + NOW
              + """
              local lease = tonumber(ARGV[3])
              local leaseUntil = now + lease
              local expires = leaseUntil + lease
              local tokenEnd = tonumber(r.N)
              if r.T == '1' and tokenEnd and tokenEnd > expires then expires = tokenEnd end
              r.U = leaseUntil
              r.E = expires
              r.L = nil
              redis.call('SET', KEYS[1], encode(r), 'PXAT', expires)
              return leaseUntil
              """);

  /**
   * KEYS: record, and the scope's tally for a capped issue whose tally shares the record's hash
   * slot. ARGV: ttl ms, scope, value, and with a tally the cap and the record's digest. Creates an
   * ISSUED record unless a live one exists; an expired one's fence carries over. Answers 1 when
   * issued, 0 when a live record exists, -1 when the scope holds the cap of others (nothing
   * written).
   */
  public static final Script ISSUE =
      new Script(
          NOW
              + FIELDS
              + READ
              + TALLY
              + """
              if live then return 0 end
              local expires = now + tonumber(ARGV[1])
              if KEYS[2] and count(KEYS[2], ARGV[5], expires, tonumber(ARGV[4]), now) == 0 then
                return -1
              end
              local c = {S = 'I', F = tonumber(r.F) or 0, T = '1', N = expires, E = expires}
              if ARGV[2] ~= '' then c.A = ARGV[2] end
              if ARGV[3] ~= '' then c.V = ARGV[3] end
              redis.call('SET', KEYS[1], encode(c), 'PXAT', expires)
              return 1
              """);

  /**
   * KEYS: a scope's tally. ARGV: a record's digest, ms it counts for, cap. For a Cluster, where the
   * tally sits in a slot of its own: counts the record unless the scope already holds the cap of
   * others (see {@code TALLY}, which the record scripts run themselves when the tally shares their
   * slot). Answers 1 when counted (newly, or it already was), 0 when refused.
   */
  public static final Script TALLY_ADD =
      new Script(
          NOW
              + TALLY
              + "return count(KEYS[1], ARGV[1], now + tonumber(ARGV[2]), tonumber(ARGV[3]), now)\n");

  /**
   * KEYS: a scope's tally. ARGV: a record's digest, ms it now counts for. Sets the end of a counted
   * record (a completion's retention, shorter or longer than its claim's); does nothing to a record
   * the tally does not count. Answers nothing useful (0).
   */
  public static final Script TALLY_SET =
      new Script(NOW + TALLY + "recount(KEYS[1], ARGV[1], now + tonumber(ARGV[2]))\nreturn 0\n");

  /** KEYS: a scope's tally. ARGV: a record's digest. Stops counting it; answers 1 if it was. */
  public static final Script TALLY_REMOVE =
      new Script(TALLY + "return uncount(KEYS[1], ARGV[1])\n");

  /**
   * KEYS: record. Deletes it if it is an ISSUED token (one just issued past its scope's cap, whose
   * value nobody was told). Answers 1 if deleted.
   */
  public static final Script DROP_ISSUED =
      new Script(
          """
          local v = redis.call('GET', KEYS[1])
          if v and string.sub(v, 1, 4) == 'S1:I' then return redis.call('DEL', KEYS[1]) end
          return 0
          """);

  /**
   * KEYS: lease, fence, and the waiter mark only from a caller that will wait. ARGV: owner, lease
   * ms, lease + fence retention ms. A lock is three keys in one slot: the lease ({@code SET NX PX},
   * holding the owner, gone when the lease ends), the fence counter (expires a fence retention
   * after the last lease) and, while someone waits, a mark that lives no longer than the holder's
   * lease. Redis ends the lease itself. The fence is the greater of the counter + 1 and the
   * server's clock in microseconds, so fences grow even after the counter expired. Answers the
   * fence when taken, else minus the ms left on the holder's lease (0 or less). A taking costs
   * {@code SET}, {@code TIME}, {@code GET} and {@code SET PX}; one integer answer keeps the reply
   * as small as the command's.
   */
  public static final Script LOCK =
      new Script(
          """
          if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
            local last = tonumber(redis.call('GET', KEYS[2]) or '0')
            if not last or last < 0 then
              redis.call('DEL', KEYS[1])
              return redis.error_reply('idem: lock fence counter is not positive')
            end
            local clock = redis.call('TIME')
            local fence = math.max(last + 1, tonumber(clock[1]) * 1000000 + tonumber(clock[2]))
            redis.call('SET', KEYS[2], string.format('%.0f', fence), 'PX', ARGV[3])
            return fence
          end
          if not KEYS[3] then return 0 end
          local left = redis.call('PTTL', KEYS[1])
          if left <= 0 then return 0 end
          redis.call('SET', KEYS[3], '1', 'PX', left)
          return -left
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

  // The resume log: an entry is a hash (s scope, k key value, f fingerprint, i input, a attempts,
  // d "1" once abandoned, x expiry in ms) that expires with the entry; a pending entry's id sits in
  // the operation's due set by due time, an abandoned one's in its abandoned set by expiry. All of
  // an operation's keys share its hash tag, so its scripts stay in one Cluster slot; the scripts
  // that read entries by the ids found in a set name them from ARGV's key prefix.
  private static final String ENTRY =
      """
      local function entry(e, id)
        local f = redis.call('HMGET', e, 's', 'k', 'f', 'i', 'a', 'd')
        return {id, f[1], f[2], f[3], f[4], f[5], f[6]}
      end
      """;

  /**
   * Writes an entry unless the key's is there with the same fingerprint; one with another is
   * replaced. KEYS: entry, due set, abandoned set. ARGV: id, scope, key value, fingerprint, input,
   * delay ms, keep ms. Answers 1 when written.
   */
  public static final Script RESUME_REMEMBER =
      new Script(
          NOW
              + """
              local held = redis.call('HGET', KEYS[1], 'f')
              if held == ARGV[4] then return 0 end
              if held then
                redis.call('DEL', KEYS[1])
                redis.call('ZREM', KEYS[3], ARGV[1])
              end
              redis.call('HSET', KEYS[1], 's', ARGV[2], 'k', ARGV[3], 'f', ARGV[4], 'i', ARGV[5],
                'a', '0', 'd', '0', 'x', string.format('%.0f', now + tonumber(ARGV[7])))
              redis.call('PEXPIRE', KEYS[1], ARGV[7])
              redis.call('ZADD', KEYS[2], now + tonumber(ARGV[6]), ARGV[1])
              return 1
              """);

  /**
   * Takes due entries. KEYS: due set. ARGV: hold ms, limit, entry key prefix. Answers each taken
   * entry as id, scope, key value, fingerprint, input, attempts, abandoned; ids whose entry expired
   * leave the set.
   */
  public static final Script RESUME_TAKE =
      new Script(
          NOW
              + ENTRY
              + """
              local out = {}
              local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, ARGV[2])
              for _, id in ipairs(ids) do
                local e = ARGV[3] .. id
                if redis.call('EXISTS', e) == 1 then
                  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), id)
                  for _, x in ipairs(entry(e, id)) do out[#out + 1] = x end
                else
                  redis.call('ZREM', KEYS[1], id)
                end
              end
              return out
              """);

  /**
   * Counts a failed attempt and sets the next due time. KEYS: entry, due set. ARGV: id, delay ms,
   * fingerprint.
   */
  public static final Script RESUME_FAILED =
      new Script(
          NOW
              + """
              local e = redis.call('HMGET', KEYS[1], 'd', 'f')
              if e[1] ~= '0' or e[2] ~= ARGV[3] then return 0 end
              redis.call('HINCRBY', KEYS[1], 'a', 1)
              redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
              return 1
              """);

  /**
   * Counts a last attempt and abandons. KEYS: entry, due set, abandoned set. ARGV: id, fingerprint.
   */
  public static final Script RESUME_ABANDON =
      new Script(
          NOW
              + """
              local e = redis.call('HMGET', KEYS[1], 'd', 'f')
              if e[1] ~= '0' or e[2] ~= ARGV[2] then return 0 end
              redis.call('HINCRBY', KEYS[1], 'a', 1)
              redis.call('HSET', KEYS[1], 'd', '1')
              redis.call('ZREM', KEYS[2], ARGV[1])
              redis.call('ZADD', KEYS[3], redis.call('HGET', KEYS[1], 'x'), ARGV[1])
              redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
              return 1
              """);

  /**
   * Lists abandoned entries. KEYS: abandoned set. ARGV: limit, entry key prefix. Answers as {@link
   * #RESUME_TAKE} does.
   */
  public static final Script RESUME_ABANDONED =
      new Script(
          NOW
              + ENTRY
              + """
              redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
              local out = {}
              local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf', 'LIMIT', 0, ARGV[1])
              for _, id in ipairs(ids) do
                local e = ARGV[2] .. id
                if redis.call('EXISTS', e) == 1 then
                  for _, x in ipairs(entry(e, id)) do out[#out + 1] = x end
                end
              end
              return out
              """);

  /**
   * Makes an abandoned entry pending. KEYS: entry, due set, abandoned set. ARGV: id, fingerprint.
   */
  public static final Script RESUME_REOPEN =
      new Script(
          NOW
              + """
              local e = redis.call('HMGET', KEYS[1], 'd', 'f')
              if e[1] ~= '1' or e[2] ~= ARGV[2] then return 0 end
              redis.call('HSET', KEYS[1], 'a', '0', 'd', '0')
              redis.call('ZREM', KEYS[3], ARGV[1])
              redis.call('ZADD', KEYS[2], now, ARGV[1])
              return 1
              """);

  /**
   * Removes an entry. KEYS: entry, due set, abandoned set. ARGV: id, fingerprint. Answers 1 when it
   * was there.
   */
  public static final Script RESUME_FORGET =
      new Script(
          """
          if redis.call('HGET', KEYS[1], 'f') ~= ARGV[2] then return 0 end
          redis.call('ZREM', KEYS[2], ARGV[1])
          redis.call('ZREM', KEYS[3], ARGV[1])
          return redis.call('DEL', KEYS[1])
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
