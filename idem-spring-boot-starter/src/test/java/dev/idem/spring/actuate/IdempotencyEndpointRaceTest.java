package dev.idem.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.Fingerprint;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.memory.InMemoryIdempotencyStore;
import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import dev.idem.core.store.ForwardingIdempotencyStore;
import dev.idem.core.store.IdempotencyStore;
import dev.idem.core.store.Lease;
import dev.idem.core.store.Outcome;
import dev.idem.core.store.RecordState;
import dev.idem.testsupport.FaultInjectingStore;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * What the endpoint answers when the store does not hold still between its read and its write, or
 * fails: the cases no HTTP client can time.
 */
@ExtendWith(OutputCaptureExtension.class)
class IdempotencyEndpointRaceTest {

  private static final IdempotencyKey KEY = IdempotencyKey.of("payments|alice", "k-1");
  private static final SecurityContext OLGA =
      new SecurityContext() {
        @Override
        public Principal getPrincipal() {
          return () -> "olga";
        }

        @Override
        public boolean isUserInRole(String role) {
          return true;
        }
      };

  private final InMemoryIdempotencyStore memory = new InMemoryIdempotencyStore();

  @Test
  void anOwnerThatCompletesBetweenTheReadAndTheReleaseKeepsItsAnswer() {
    Lease lease = claim();
    IdempotencyStore ownerFinishesFirst =
        new ForwardingIdempotencyStore(memory) {
          @Override
          public boolean evict(IdempotencyKey key, RecordState state, long fence) {
            memory.complete(lease, Outcome.success(bytes("paid")), Duration.ofHours(1)).join();
            return super.evict(key, state, fence);
          }
        };

    WebEndpointResponse<OperatorActionDescriptor> answer =
        new IdempotencyEndpoint(ownerFinishesFirst).release(OLGA, KEY.scope(), KEY.value(), null);

    assertThat(answer.getStatus()).isEqualTo(409);
    assertThat(answer.getBody().done()).isFalse();
    assertThat(answer.getBody().message()).contains("changed while it was being released");
    assertThat(memory.find(KEY).orElseThrow().outcome().payload()).isEqualTo(bytes("paid"));
  }

  @Test
  void aStoreThatFailsIsUnavailableAndTheAttemptIsLogged(CapturedOutput output) {
    claim();
    FaultInjectingStore down = new FaultInjectingStore(memory);
    down.failNext(FaultInjectingStore.Operation.EVICT, 1);

    WebEndpointResponse<OperatorActionDescriptor> answer =
        new IdempotencyEndpoint(down).release(OLGA, KEY.scope(), KEY.value(), null);

    assertThat(answer.getStatus()).isEqualTo(503);
    assertThat(answer.getBody().message()).contains("injected fault");
    assertThat(memory.find(KEY).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
    assertThat(output.getOut().lines())
        .filteredOn(line -> line.contains("'olga' asked to release key 'k-1' in scope"))
        .singleElement()
        .asString()
        .contains(" WARN ", "'payments|alice', and the store failed");
  }

  private Lease claim() {
    ClaimResult result =
        memory.claim(ClaimRequest.of(KEY, Fingerprint.NONE, Duration.ofMinutes(5))).join();
    return ((ClaimResult.Claimed) result).lease();
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
