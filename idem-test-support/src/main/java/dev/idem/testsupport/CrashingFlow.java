package dev.idem.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.core.ExecutionContext;
import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.ResultCodec;
import dev.idem.core.resume.Completer;
import dev.idem.core.resume.ResumableOperation;
import dev.idem.core.resume.ResumeLog;
import dev.idem.core.store.IdempotencyStore;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The child side of a crash in a flow of steps, and the flow itself: four steps (the article's
 * stock, balance, charge and message), each of which makes its effect under the key a downstream
 * service would deduplicate by, and prints it as {@code effect <step> <key>}. The child prints
 * {@code at <point>} at the point it was asked to hang at and waits there until it is killed.
 *
 * <p>Arguments: factory class (a {@code Supplier<IdempotencyStore>} with a public no-argument
 * constructor), scope, key value, lease in milliseconds, the point: {@code in:<step>} (after the
 * step's effect, before the step ends) or {@code after:<step>}; then, to run the flow as a
 * resumable operation, a factory class of its {@code Supplier<ResumeLog>} and the operation's name,
 * which must be the key's scope.
 */
public final class CrashingFlow {

  /** The steps, in the order the flow makes them. */
  public static final List<String> STEPS = List.of("stock", "balance", "charge", "publish");

  /** The request the flow runs for. */
  public static final Fingerprint REQUEST = Fingerprint.of("POST /orders/pay", "order-1");

  /** The input of the flow when it runs as a resumable operation. */
  public static final String ORDER = "order-1";

  /** What the flow answers once every step ran. */
  public static final String ANSWER = "stock-done balance-done charge-done publish-done";

  private CrashingFlow() {}

  public static void main(String[] args) throws Exception {
    @SuppressWarnings("unchecked")
    Supplier<IdempotencyStore> factory =
        (Supplier<IdempotencyStore>) Class.forName(args[0]).getDeclaredConstructor().newInstance();
    Idempotency engine = Idempotency.builder(factory.get()).build();
    IdempotencyKey key = IdempotencyKey.of(args[1], args[2]);
    IdempotencyConfig config =
        IdempotencyConfig.custom().lease(Duration.ofMillis(Long.parseLong(args[3]))).build();
    String point = args[4];
    // A cold JVM's first claim (connection, scripts, classes) can take more than half a short
    // lease on a busy machine and be given back as late; a claim of a key of its own warms it.
    engine
        .call(IdempotencyKey.of(args[1], "warm-up-" + args[2]), Fingerprint.NONE)
        .config(IdempotencyConfig.custom().lease(Duration.ofSeconds(30)).build())
        .run(ctx -> "warm");
    Consumer<String> print =
        effect -> {
          System.out.println(effect);
          System.out.flush();
        };
    Callable<?> flow;
    if (args.length > 5) {
      @SuppressWarnings("unchecked")
      Supplier<ResumeLog> logs =
          (Supplier<ResumeLog>) Class.forName(args[5]).getDeclaredConstructor().newInstance();
      ResumableOperation<String, String> operation =
          Completer.builder(engine, logs.get())
              .build()
              .register(
                  args[6],
                  ResultCodec.utf8(),
                  ResultCodec.utf8(),
                  config,
                  (order, ctx) -> run(ctx, point, print));
      flow = () -> operation.executeWithStatus(key, ORDER);
    } else {
      flow = () -> engine.call(key, REQUEST).config(config).run(ctx -> run(ctx, point, print));
    }
    // A later claim can still be answered after half the short lease on a loaded machine and be
    // given back as late: the flow runs again, its stored steps replayed, their effects not made
    // (nor printed) again, as a caller's retry would.
    for (int attempt = 1; ; attempt++) {
      try {
        flow.call();
        break;
      } catch (IdempotencyStoreException e) {
        if (attempt == 5) {
          throw e;
        }
      }
    }
    System.out.println("finished without reaching " + point);
    System.exit(3);
  }

  /**
   * Runs the flow in {@code ctx}, telling {@code effects} of each effect made, and hangs at {@code
   * point} (never, for a point no step has).
   */
  public static String run(ExecutionContext ctx, String point, Consumer<String> effects) {
    StringBuilder answer = new StringBuilder();
    for (String step : STEPS) {
      String done =
          ctx.step(
              step,
              s -> {
                effects.accept("effect " + step + " " + s.key().digest());
                hangAt("in:" + step, point);
                return step + "-done";
              });
      answer.append(answer.isEmpty() ? "" : " ").append(done);
      hangAt("after:" + step, point);
    }
    return answer.toString();
  }

  /**
   * Asserts what a flow killed at {@code point} and then finished by another run leaves: each
   * step's effect made under one key, and only a step killed midway made twice.
   *
   * @param effects every {@code effect <step> <key>} line of both runs
   */
  public static void assertEachEffectOnce(String point, List<String> effects) {
    Map<String, Set<String>> keysByStep = new TreeMap<>();
    for (String effect : effects) {
      String[] parts = effect.split(" ");
      keysByStep.computeIfAbsent(parts[1], s -> new HashSet<>()).add(parts[2]);
    }
    assertThat(keysByStep.keySet()).containsExactlyInAnyOrderElementsOf(STEPS);
    assertThat(keysByStep.values())
        .as("killed %s: each effect reached its downstream under one key: %s", point, effects)
        .allSatisfy(keys -> assertThat(keys).hasSize(1));
    assertThat(effects)
        .as("killed %s: only a step killed midway ran again: %s", point, effects)
        .hasSize(point.startsWith("in:") ? 5 : 4);
  }

  private static void hangAt(String here, String point) {
    if (!here.equals(point)) {
      return;
    }
    System.out.println("at " + here);
    System.out.flush();
    try {
      new CountDownLatch(1).await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted at " + here, e);
    }
  }
}
