package dev.idem.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.StoreFullException;
import dev.idem.core.TokenAlreadyUsedException;
import dev.idem.core.TokenService;
import dev.idem.core.UnknownTokenException;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordState;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Server-issued tokens on a store: the ISSUED state at the store level, and {@link TokenService} on
 * top of it (issue, use once, replay, restore after a retryable failure, refuse the rest).
 */
public abstract class TokenContract extends StoreContractSupport {

  private @Nullable Idempotency engine;

  protected Idempotency engine() {
    if (engine == null) {
      engine = Idempotency.builder(store()).build();
    }
    return engine;
  }

  @AfterEach
  void closeEngine() {
    if (engine != null) {
      engine.close();
    }
  }

  @Test
  void anIssuedTokenIsAnIssuedRecordAndCannotBeIssuedTwice() {
    IdempotencyKey key = newKey();
    assertThat(store().issue(key, longLease())).isTrue();
    assertThat(store().issue(key, longLease())).isFalse();
    var record = store().find(key).orElseThrow();
    assertThat(record.state()).isEqualTo(RecordState.ISSUED);
    assertThat(record.token()).isTrue();
  }

  @Test
  void aTokenClaimNeedsAnIssuedRecord() {
    IdempotencyKey never = newKey();
    assertThat(claim(tokenClaim(never))).isInstanceOf(ClaimResult.UnknownToken.class);
    assertThat(store().find(never)).as("a refused token leaves nothing behind").isEmpty();

    IdempotencyKey plain = newKey();
    claimOrFail(plain, fingerprint("a"), longLease());
    assertThat(claim(tokenClaim(plain))).isInstanceOf(ClaimResult.UnknownToken.class);
  }

  @Test
  void anIssuedTokenIsClaimedOnceThenReplayed() {
    IdempotencyKey key = newKey();
    store().issue(key, longLease());
    ClaimResult first = claim(tokenClaim(key));
    assertThat(first).isInstanceOf(ClaimResult.Claimed.class);
    Lease lease = ((ClaimResult.Claimed) first).lease();
    assertThat(claim(tokenClaim(key))).isInstanceOf(ClaimResult.InProgress.class);
    complete(lease, Outcome.success(bytes("order-1")), longLease());
    ClaimResult again = claim(tokenClaim(key));
    assertThat(again).isInstanceOf(ClaimResult.Completed.class);
    assertThat(((ClaimResult.Completed) again).record().token()).isTrue();
  }

  @Test
  void releasingAClaimedTokenRestoresItToIssued() {
    IdempotencyKey key = newKey();
    store().issue(key, longLease());
    Lease lease = ((ClaimResult.Claimed) claim(tokenClaim(key))).lease();
    assertThat(release(lease)).isTrue();
    assertThat(store().find(key).orElseThrow().state()).isEqualTo(RecordState.ISSUED);
    Lease retry = ((ClaimResult.Claimed) claim(tokenClaim(key))).lease();
    assertThat(retry.fence()).isGreaterThan(lease.fence());
  }

  @Test
  void anExpiredTokenIsUnknown() {
    IdempotencyKey key = newKey();
    store().issue(key, shortLease());
    passBeyond(shortLease());
    assertThat(claim(tokenClaim(key))).isInstanceOf(ClaimResult.UnknownToken.class);
    assertThat(store().issue(key, longLease())).as("an expired token's key is free").isTrue();
  }

  @Test
  void issuanceIsBoundedAcrossCallersSoManyAccountsCannotMintWithoutBound() {
    TokenService tokens = new TokenService(engine(), longLease(), true, ClaimRequest.NO_CAP, 3);
    for (int caller = 0; caller < 3; caller++) {
      tokens.issue(scope + ":account-" + caller);
    }
    assertThatThrownBy(() -> tokens.issue(scope + ":account-3"))
        .isInstanceOf(StoreFullException.class)
        .hasMessageContaining("across all callers");
  }

  @Test
  void aCapRefusesIssuingPastItButNeverTheUseOfAnIssuedTokenWhichStillCounts() {
    TokenService tokens = new TokenService(engine(), longLease(), true, 2);
    String caller = scope + ":capped";
    String first = tokens.issue(caller);
    tokens.issue(caller);
    assertThatThrownBy(() -> tokens.issue(caller)).isInstanceOf(StoreFullException.class);
    AtomicInteger runs = new AtomicInteger();
    for (int i = 0; i < 2; i++) {
      assertThat(
              tokens
                  .call(caller, first, fingerprint("o"))
                  .run(ctx -> "order-" + runs.incrementAndGet()))
          .isEqualTo("order-1");
    }
    assertThatThrownBy(() -> tokens.issue(caller))
        .as("a used token still counts while its answer is kept")
        .isInstanceOf(StoreFullException.class);
    assertThatThrownBy(
            () -> tokens.call(caller, "AAAAAAAAAAAAAAAAAAAAAA", fingerprint("o")).run(c -> ""))
        .as("a forged token at the cap is unknown, not a full store")
        .isInstanceOf(UnknownTokenException.class);
  }

  @Test
  void theServiceRunsWorkOnceAndReplaysTheFirstResult() {
    TokenService tokens = new TokenService(engine());
    String token = tokens.issue(scope);
    AtomicInteger runs = new AtomicInteger();
    String first =
        tokens.call(scope, token, fingerprint("o")).run(ctx -> "order-" + runs.incrementAndGet());
    String second =
        tokens.call(scope, token, fingerprint("o")).run(ctx -> "order-" + runs.incrementAndGet());
    assertThat(first).isEqualTo("order-1");
    assertThat(second).isEqualTo("order-1");
    assertThat(runs).hasValue(1);
  }

  @Test
  void theServiceRefusesForgedUnknownAndExpiredTokens() {
    TokenService tokens = new TokenService(engine(), shortLease(), true);
    AtomicInteger runs = new AtomicInteger();
    for (String forged :
        new String[] {"", "not a token", "AAAAAAAAAAAAAAAAAAAAAA", UUID.randomUUID().toString()}) {
      assertThatThrownBy(
              () ->
                  tokens
                      .call(scope, forged, Fingerprint.NONE)
                      .run(ctx -> "x" + runs.incrementAndGet()))
          .isInstanceOf(UnknownTokenException.class);
    }
    String expired = tokens.issue(scope);
    passBeyond(shortLease());
    assertThatThrownBy(
            () ->
                tokens
                    .call(scope, expired, Fingerprint.NONE)
                    .run(ctx -> "x" + runs.incrementAndGet()))
        .isInstanceOf(UnknownTokenException.class);
    assertThat(runs).hasValue(0);
  }

  @Test
  void aTokenIssuedForOneScopeIsUnknownInAnother() {
    TokenService tokens = new TokenService(engine());
    String token = tokens.issue(scope + ":alice");
    assertThatThrownBy(() -> tokens.call(scope + ":bob", token, Fingerprint.NONE).run(ctx -> "x"))
        .isInstanceOf(UnknownTokenException.class);
  }

  @Test
  void theServiceCanRefuseAUsedTokenAsTheArticleDoes() {
    TokenService tokens = new TokenService(engine(), TokenService.DEFAULT_TTL, false);
    String token = tokens.issue(scope);
    tokens.call(scope, token, Fingerprint.NONE).run(ctx -> "once");
    assertThatThrownBy(() -> tokens.call(scope, token, Fingerprint.NONE).run(ctx -> "twice"))
        .isInstanceOf(TokenAlreadyUsedException.class);
  }

  @Test
  void aRetryableFailureGivesTheTokenBack() {
    TokenService tokens = new TokenService(engine());
    String token = tokens.issue(scope);
    assertThatThrownBy(
            () ->
                tokens
                    .call(scope, token, Fingerprint.NONE)
                    .run(
                        ctx -> {
                          throw new IllegalStateException("gateway down");
                        }))
        .isInstanceOf(IllegalStateException.class);
    assertThat(tokens.call(scope, token, Fingerprint.NONE).run(ctx -> "second try"))
        .isEqualTo("second try");
  }

  @Test
  void aTerminalFailureUsesTheTokenUp() {
    TokenService tokens = new TokenService(engine());
    IdempotencyConfig config =
        IdempotencyConfig.custom().terminalWhen(e -> e instanceof IllegalArgumentException).build();
    String token = tokens.issue(scope);
    AtomicInteger runs = new AtomicInteger();
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(
              () ->
                  tokens
                      .call(scope, token, Fingerprint.NONE)
                      .config(config)
                      .runWithStatus(
                          ctx -> {
                            runs.incrementAndGet();
                            throw new IllegalArgumentException("out of stock");
                          }))
          .hasMessageContaining("out of stock");
    }
    assertThat(runs).hasValue(1);
  }

  private ClaimRequest tokenClaim(IdempotencyKey key) {
    return new ClaimRequest(key, Fingerprint.NONE, longLease(), true);
  }
}
