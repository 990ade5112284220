package dev.idem.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class RecordValueRepliesTest {

  private static final IdempotencyKey KEY = IdempotencyKey.of("orders", "k-1");

  @Test
  void aCompletionOfThisVersionReportsItsEndByTheCompletingClock() {
    byte[] value = completed().field('X', 1_764_000_000_000L).toBytes();

    ClaimResult result = RecordValue.completed(value, claim(Fingerprint.NONE));

    assertThat(result).isInstanceOf(ClaimResult.Completed.class);
    assertThat(((ClaimResult.Completed) result).record().expiresAt())
        .isEqualTo(Instant.ofEpochMilli(1_764_000_000_000L));
  }

  @Test
  void aCompletionOfAnEarlierVersionReportsItsServerEnd() {
    byte[] value = completed().field('E', 1_700_000_000_000L).toBytes();

    ClaimResult result = RecordValue.completed(value, claim(Fingerprint.NONE));

    assertThat(((ClaimResult.Completed) result).record().expiresAt())
        .isEqualTo(Instant.ofEpochMilli(1_700_000_000_000L));
  }

  @Test
  void anotherFingerprintIsAMismatchAndAnInProgressRecordIsNotAnswered() {
    byte[] value = completed().field('X', 1L).field('P', "a".repeat(64)).toBytes();

    assertThat(RecordValue.completed(value, claim(new Fingerprint("b".repeat(64)))))
        .isInstanceOf(ClaimResult.Mismatch.class);
    byte[] inProgress = new RecordValue.Writer().field('S', "P").field('F', 1).toBytes();
    assertThat(RecordValue.completed(inProgress, claim(Fingerprint.NONE))).isNull();
  }

  @Test
  void aForeignValueIsAStoreErrorNotACrash() {
    byte[] noLease = new RecordValue.Writer().field('S', "P").field('F', 1).toBytes();
    byte[] badFingerprint = completed().field('X', 1L).field('P', "not-a-digest").toBytes();

    assertThatThrownBy(
            () -> RecordValue.claim(Arrays.asList(bytes("I"), noLease, null, 1L), KEY, "someone"))
        .isInstanceOf(IdempotencyStoreException.class);
    assertThatThrownBy(() -> RecordValue.completed(badFingerprint, claim(Fingerprint.NONE)))
        .isInstanceOf(IdempotencyStoreException.class);
    assertThatThrownBy(() -> RecordValue.completed(completed().toBytes(), claim(Fingerprint.NONE)))
        .isInstanceOf(IdempotencyStoreException.class);
  }

  private static ClaimRequest claim(Fingerprint fingerprint) {
    return ClaimRequest.of(KEY, fingerprint, Duration.ofSeconds(30));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static RecordValue.Writer completed() {
    return new RecordValue.Writer()
        .field('S', "C")
        .field('F', 1)
        .field('K', "S")
        .field('B', new byte[] {1, 2});
  }
}
