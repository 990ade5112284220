package dev.idem.spring.web.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.IdempotencyException;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.InvalidKeyException;
import dev.idem.core.KeyReuseException;
import dev.idem.core.LeaseLostException;
import dev.idem.core.MalformedJsonException;
import dev.idem.core.OutcomeNotReplayableException;
import dev.idem.core.OutcomeTooLargeException;
import dev.idem.core.ReplayedFailureException;
import dev.idem.core.RequestInProgressException;
import dev.idem.core.StoreFullException;
import dev.idem.core.TokenAlreadyUsedException;
import dev.idem.core.UnknownTokenException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.web.bind.annotation.ExceptionHandler;

/**
 * The advice's list of exceptions and {@link ProblemAnswer#of} are two places for one mapping: the
 * advice handles exactly the Idem exceptions that have an HTTP answer, so that the others reach the
 * application's handlers.
 */
class IdemExceptionAdviceTest {

  private static final IdempotencyKey KEY = IdempotencyKey.of("orders", "k1");

  private static final List<IdempotencyException> EVERY_KIND =
      List.of(
          new IdempotencyStoreException("down"),
          new InvalidKeyException("bad"),
          InvalidKeyException.missing("none"),
          new KeyReuseException(KEY),
          new LeaseLostException("taken over"),
          new MalformedJsonException("bad json", 3),
          new OutcomeNotReplayableException(KEY, "too large"),
          new OutcomeTooLargeException(10, 5),
          new ReplayedFailureException("java.lang.IllegalStateException", "failed"),
          new RequestInProgressException(KEY, Duration.ofSeconds(2)),
          new StoreFullException("full"),
          new TokenAlreadyUsedException("used"),
          new UnknownTokenException("unknown"));

  @Test
  void anEscapedRefusalNeverSpeaksOfTheClientsKeyNorRepeatsTheExceptionsMessage() {
    // the key of a bean method's refusal is the operation's, which the client never sent
    for (IdempotencyException e : EVERY_KIND) {
      ProblemAnswer escaped = ProblemAnswer.escaped(e);
      if (escaped == null
          || e instanceof TokenAlreadyUsedException
          || e instanceof UnknownTokenException) {
        continue;
      }
      String text = escaped.title() + " " + (escaped.detail() == null ? "" : escaped.detail());
      assertThat(text).as(e.getClass().getSimpleName()).doesNotContainIgnoringCase("this key");
      assertThat(text).as(e.getClass().getSimpleName()).doesNotContain(e.getMessage());
    }
  }

  @Test
  void theAdviceHandlesExactlyTheExceptionsThatHaveAnAnswer() throws Exception {
    Method answer =
        IdemExceptionAdvice.class.getDeclaredMethod("answer", IdempotencyException.class);
    List<Class<? extends Throwable>> handled =
        Arrays.asList(answer.getAnnotation(ExceptionHandler.class).value());
    for (IdempotencyException e : EVERY_KIND) {
      boolean isHandled = handled.stream().anyMatch(type -> type.isInstance(e));
      assertThat(isHandled).as(e.getClass().getSimpleName()).isEqualTo(ProblemAnswer.of(e) != null);
    }
  }

  @Test
  void aStoreFailureInsideAHandlerDoesNotSayTheRequestWasNotRun() {
    ProblemAnswer filter = ProblemAnswer.of(new IdempotencyStoreException("down"));
    ProblemAnswer escaped = ProblemAnswer.escaped(new IdempotencyStoreException("down"));

    assertThat(filter.detail()).contains("not run");
    assertThat(escaped.detail()).doesNotContain("not run");
    assertThat(escaped.status()).isEqualTo(503);
    assertThat(escaped.retryAfter()).isEqualTo(filter.retryAfter());
  }
}
