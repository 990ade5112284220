package dev.idem.redis.internal;

import dev.idem.core.store.ClaimRequest;
import dev.idem.core.store.ClaimResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Claims of several keys sent together: the uncapped claims of one hash slot go in one script
 * ({@link LuaScripts#CLAIM_ALL}), at most {@value #MOST_PER_SCRIPT} to a script so that no script
 * holds Redis long; a capped claim, which counts in its scope's tally first, goes alone. Each
 * claim's stage ends with its own answer, bounded as a claim alone is, and a script that fails or
 * times out gives back every claim it carried.
 */
public final class ClaimBatches {

  /** The most claims one script carries. */
  static final int MOST_PER_SCRIPT = 128;

  private final RedisBackend backend;
  private final RedisKeys keys;
  private final RecordClaims claims;

  public ClaimBatches(RedisBackend backend, RedisKeys keys, RecordClaims claims) {
    this.backend = backend;
    this.keys = keys;
    this.claims = claims;
  }

  /**
   * The stage of each request's claim, in order.
   *
   * @param alone how a claim that cannot share a script is sent
   */
  public List<CompletableFuture<ClaimResult>> claimAll(
      List<ClaimRequest> requests, Function<ClaimRequest, CompletableFuture<ClaimResult>> alone) {
    List<CompletableFuture<ClaimResult>> answers = new ArrayList<>(requests.size());
    Map<Integer, List<Integer>> bySlot = new LinkedHashMap<>();
    for (int i = 0; i < requests.size(); i++) {
      ClaimRequest request = requests.get(i);
      if (request.capped()) {
        answers.add(alone.apply(request));
      } else {
        answers.add(new CompletableFuture<>());
        bySlot
            .computeIfAbsent(backend.slotOf(keys.record(request.key())), s -> new ArrayList<>())
            .add(i);
      }
    }
    for (List<Integer> slot : bySlot.values()) {
      for (int from = 0; from < slot.size(); from += MOST_PER_SCRIPT) {
        send(requests, slot.subList(from, Math.min(slot.size(), from + MOST_PER_SCRIPT)), answers);
      }
    }
    return answers;
  }

  private void send(
      List<ClaimRequest> requests,
      List<Integer> positions,
      List<CompletableFuture<ClaimResult>> answers) {
    List<ClaimRequest> sent = new ArrayList<>(positions.size());
    List<String> owners = new ArrayList<>(positions.size());
    Duration timeout = RedisBackend.CALL_BOUND;
    for (int position : positions) {
      ClaimRequest request = requests.get(position);
      sent.add(request);
      owners.add(RecordClaims.owner(request));
      Duration bound = RecordClaims.bound(backend.timeout(), request.lease());
      timeout = bound.compareTo(timeout) < 0 ? bound : timeout;
    }
    CompletableFuture<List<Object>> replies;
    try {
      replies = RecordClaims.bounded(claims.claimAll(sent, owners), timeout, backend.timer());
    } catch (RuntimeException e) {
      replies = CompletableFuture.failedFuture(e);
    }
    replies.whenComplete(
        (reply, failure) -> {
          for (int i = 0; i < positions.size(); i++) {
            CompletableFuture<ClaimResult> answer = answers.get(positions.get(i));
            ClaimRequest request = sent.get(i);
            if (failure != null) {
              claims.giveBack(request.key(), owners.get(i), request.lease());
              answer.completeExceptionally(ScriptRunner.failed(failure));
              continue;
            }
            try {
              answer.complete(claims.answer(reply.get(i), request, owners.get(i)));
            } catch (RuntimeException e) {
              claims.giveBack(request.key(), owners.get(i), request.lease());
              answer.completeExceptionally(e);
            }
          }
        });
  }
}
