package dev.idem.bench;

import dev.idem.bench.article.ArticleTokenService;
import dev.idem.bench.article.CheckThenDeleteTokenService;
import dev.idem.bench.article.FixedTokenService;
import dev.idem.bench.article.TokenGuard;
import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.RequestInProgressException;
import dev.idem.core.TokenService;
import dev.idem.core.UnknownTokenException;
import dev.idem.redis.RedisIdempotencyStore;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The token pair: the article's token service as written, its flow as drawn, its fix, and Idem's
 * {@link TokenService} on {@link RedisIdempotencyStore}, all on the same Redis. Every token is
 * issued once and then used by several requests at nearly the same moment (see {@link
 * RepeatedUses}); the work a request guards counts its runs.
 */
final class TokenPeers implements AutoCloseable {

  static final String AS_WRITTEN = "article token service, as written (SETNX)";
  static final String AS_DRAWN = "article token flow, as drawn (EXISTS, work, DEL)";
  static final String FIXED = "article token service, fixed (one DEL)";
  static final String IDEM = "Idem TokenService on RedisIdempotencyStore";

  /** Tokens tried that were never issued, after the load, per variant. */
  static final int FORGED = 100;

  private static final String SCOPE = "orders:create:alice";
  private static final String RECEIPT = "order-2026-000000000042";

  private final Map<String, TokenGuard> guards = new LinkedHashMap<>();
  private final Map<String, Supplier<String>> forgers = new LinkedHashMap<>();
  private final RedisIdempotencyStore store;
  private final Idempotency engine;

  TokenPeers(RedisRig rig) {
    String tokens = rig.prefix() + "article:idempotent:token:";
    guards.put(AS_WRITTEN, new ArticleTokenService(rig.raw(), tokens));
    guards.put(AS_DRAWN, new CheckThenDeleteTokenService(rig.raw(), tokens));
    guards.put(FIXED, new FixedTokenService(rig.raw(), tokens));
    this.store = RedisIdempotencyStore.create(rig.client(), rig.prefix() + "idem:");
    this.engine =
        Idempotency.builder(store)
            .defaults(IdempotencyConfig.custom().retention(Duration.ofHours(1)).build())
            .build();
    guards.put(IDEM, new IdemTokens(new TokenService(engine)));
    Supplier<String> hex = () -> UUID.randomUUID().toString().replace("-", "");
    SecureRandom random = new SecureRandom();
    Supplier<String> idemShape =
        () -> {
          byte[] bits = new byte[16];
          random.nextBytes(bits);
          return Base64.getUrlEncoder().withoutPadding().encodeToString(bits);
        };
    forgers.put(AS_WRITTEN, hex);
    forgers.put(AS_DRAWN, hex);
    forgers.put(FIXED, hex);
    forgers.put(IDEM, idemShape);
  }

  /** The variants, in the order they run. */
  Iterable<String> variants() {
    return guards.keySet();
  }

  /**
   * One turn of {@code variant}: each token used {@code uses} times by the driver's threads.
   *
   * @param pair the pair's name in the report
   */
  PeerRow measure(String pair, String variant, LoadDriver driver, int uses)
      throws InterruptedException {
    TokenGuard guard = guards.get(variant);
    RepeatedUses<String> tokens = new RepeatedUses<>(uses, index -> guard.issue());
    LongAdder calls = new LongAdder();
    LongAdder refused = new LongAdder();
    LoadDriver.Result result =
        driver.run(
            () -> {
              RepeatedUses.Use<String> use = tokens.next();
              try {
                Optional<String> answer =
                    guard.submit(
                        use.value(),
                        () -> {
                          use.applied();
                          return RECEIPT;
                        });
                if (answer.isEmpty()) {
                  refused.increment();
                }
              } finally {
                use.end();
                calls.increment();
              }
            });
    return new PeerRow(
        pair,
        variant,
        result,
        result.operations(),
        calls.sum(),
        refused.sum(),
        tokens.doubled(),
        tokens.neverApplied());
  }

  /** How many of {@link #FORGED} never-issued tokens {@code variant} let through. */
  long forgedAccepted(String variant) {
    TokenGuard guard = guards.get(variant);
    long accepted = 0;
    for (int i = 0; i < FORGED; i++) {
      if (guard.submit(forgers.get(variant).get(), () -> RECEIPT).isPresent()) {
        accepted++;
      }
    }
    return accepted;
  }

  /** Idem's token service behind the benchmark's interface; a used token replays. */
  private static final class IdemTokens implements TokenGuard {
    private final TokenService tokens;

    IdemTokens(TokenService tokens) {
      this.tokens = tokens;
    }

    @Override
    public String issue() {
      return tokens.issue(SCOPE);
    }

    @Override
    public Optional<String> submit(String token, Supplier<String> action) {
      try {
        return Optional.of(tokens.call(SCOPE, token, Fingerprint.NONE).run(ctx -> action.get()));
      } catch (RequestInProgressException | UnknownTokenException e) {
        return Optional.empty();
      }
    }
  }

  @Override
  public void close() {
    try {
      engine.close();
    } finally {
      store.close();
    }
  }
}
