package dev.idem.spring.aop;

import dev.idem.core.Deferral;
import dev.idem.core.Executed;
import dev.idem.core.ExecutionContext;
import dev.idem.core.Fingerprint;
import dev.idem.core.Idempotency;
import dev.idem.core.IdempotencyConfig;
import dev.idem.core.IdempotencyKey;
import dev.idem.core.InvalidKeyException;
import dev.idem.core.LeaseLostException;
import dev.idem.core.Work;
import dev.idem.core.resume.Completer;
import dev.idem.core.resume.ResumableOperation;
import dev.idem.spring.IdemPolicies;
import dev.idem.spring.Idempotent;
import dev.idem.spring.InFlightWork;
import dev.idem.spring.NotInGuardedCallException;
import dev.idem.spring.ai.internal.ToolCalls;
import dev.idem.spring.aop.internal.JsonArguments;
import dev.idem.spring.aop.internal.LaterResults;
import dev.idem.spring.aop.internal.MethodPlan;
import dev.idem.spring.aop.internal.OutsideTransaction;
import dev.idem.spring.aop.internal.ResultShape;
import dev.idem.spring.aop.internal.ResumableCalls;
import dev.idem.spring.aop.internal.ResumedCalls;
import dev.idem.spring.aop.internal.ScheduledRuns;
import dev.idem.spring.aop.internal.ScheduledSlot;
import dev.idem.spring.aop.internal.StepNames;
import dev.idem.spring.internal.TransactionOutcomes;
import dev.idem.spring.messaging.internal.ListenerBeans;
import java.lang.reflect.Method;
import java.lang.reflect.UndeclaredThrowableException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ClassUtils;
import tools.jackson.databind.ObjectMapper;

/**
 * Runs an {@link Idempotent @Idempotent} bean method through the {@link Idempotency} engine: once
 * per key, with the operation's policy; a repeat gets the stored return value (or the stored
 * terminal failure) without the method running.
 *
 * <p>The key's scope is the operation, followed by {@code "|<caller>"} when an {@link
 * IdempotentCallerResolver} names one. A key expression that gives null or blank fails with {@link
 * InvalidKeyException} (or runs the method unguarded when {@code required = false}); so does one
 * that cannot be evaluated (a null argument) or gives a value that is not a valid key. Nothing is
 * stored in these cases.
 *
 * <p>A method's outcome follows a transaction only when its own declaration puts its effects in it
 * ({@code @Transactional} on the method or its class). Then, inside a Spring transaction that the
 * store does not write in (Redis, memory, JDBC with join off or on another DataSource), the outcome
 * is held until the transaction ends: stored after it commits, the key freed after it rolls back,
 * so that a retry runs again instead of replaying an answer whose effects were rolled back; until
 * then a duplicate finds the key in progress. With the JDBC store in join mode the record is
 * written in the transaction itself. A method that declares no transaction but is called inside one
 * (a card charge inside a checkout) has effects that no rollback takes back: its outcome is stored
 * when it returns, outside that transaction (in join mode too), and this is logged once per method
 * at WARN.
 *
 * <p>A method that names no key (and is not {@code @Scheduled}) is a step of the guarded call that
 * runs it ({@link ExecutionContext#step}): an HTTP request with a key, a keyed method, a listener.
 * Its first call in a run is the step named by its operation, its second {@code operation#2}, and
 * so on (a call right after a failed one with the same arguments is its retry, under its name); its
 * arguments are the step's input, and its operation's policy its config. Called outside a guarded
 * call it fails with {@link NotInGuardedCallException} (or runs unguarded, with {@code required =
 * false}). Declaring a transaction, its outcome is held until that transaction ends.
 *
 * <p>A method returning a {@code CompletableFuture}, a {@code Mono} or a {@code Flux} is called
 * only once its key is claimed, and its outcome is settled when its result ends ({@link
 * LaterResults}); for those a bad key is the result's failure, not a throw.
 *
 * <p>A {@link Idempotent#resumable() resumable} method's call writes its arguments to the
 * completer's log once it holds its key ({@link ResumableCalls}); the completer's own run of it
 * comes back through this advice marked, and runs inside the completer's claim.
 *
 * <p>A Spring AI tool method that names no key takes the one its call sends, and its caller is the
 * calling agent ({@link ToolCalls}), after what an {@link IdempotentCallerResolver} names.
 *
 * <p>Longer than 400 lines because it is the one place where a bean call meets the engine, and the
 * order of its decisions (step, scheduled slot, resumable, result that ends later, transaction) is
 * the rule; each decision is a short method of its own or a class beside it (what identifies the
 * call, its key, scope and fingerprint: {@link CallIdentity}).
 */
public class IdempotentMethodInterceptor implements MethodInterceptor, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(IdempotentMethodInterceptor.class);
  private static final boolean SPRING_TX =
      ClassUtils.isPresent(
          "org.springframework.transaction.support.TransactionSynchronizationManager",
          IdempotentMethodInterceptor.class.getClassLoader());

  private final Idempotency idempotency;
  // the engine of event listeners: the application's, or a JDBC one joining their transactions
  private final @Nullable ListenerBeans events;
  private final IdemPolicies policies;
  private final ObjectMapper mapper;
  private final @Nullable IdempotentCallerResolver callers;
  private final @Nullable BeanFactory beanFactory;
  private final InFlightWork inFlight;
  private final LaterResults later;
  private final SpelExpressionParser parser = new SpelExpressionParser();
  private final CallIdentity identity;
  private final Map<AnnotatedElementKey, MethodPlan> plans = new ConcurrentHashMap<>();
  private final Set<Method> warned = ConcurrentHashMap.newKeySet();
  private final ScheduledRuns scheduled = new ScheduledRuns();
  private final StepNames steps = new StepNames();
  private final ResumableCalls resumables = new ResumableCalls();
  private volatile Clock clock = Clock.systemUTC();

  /**
   * @param callers names the caller, or null for none
   * @param beanFactory lets expressions reference beans ({@code @clock.instant()}), or null
   * @param inFlight counts the methods running under a claimed key
   * @param later runs the methods whose result ends later (a future, a {@code Mono}, a {@code
   *     Flux})
   */
  public IdempotentMethodInterceptor(
      Idempotency idempotency,
      IdemPolicies policies,
      ObjectMapper mapper,
      @Nullable IdempotentCallerResolver callers,
      @Nullable BeanFactory beanFactory,
      InFlightWork inFlight,
      LaterResults later) {
    this.idempotency = idempotency;
    this.policies = policies;
    this.mapper = mapper;
    this.callers = callers;
    this.beanFactory = beanFactory;
    this.inFlight = inFlight;
    this.later = later;
    this.identity = new CallIdentity(mapper, callers, beanFactory);
    this.events =
        beanFactory instanceof ConfigurableListableBeanFactory factory
            ? new ListenerBeans(
                factory,
                p -> p.getEvents().getStore(),
                // no consumer is made of it: a listener's retention is its operation's policy
                p -> Duration.ZERO,
                "idem.events")
            : null;
  }

  @Override
  public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
    Method method = invocation.getMethod();
    Object target = invocation.getThis();
    Class<?> targetClass =
        target == null ? method.getDeclaringClass() : AopUtils.getTargetClass(target);
    MethodPlan plan = planOf(method, targetClass);
    @Nullable Object[] arguments = invocation.getArguments();
    EvaluationContext context = identity.context(plan, target, arguments);
    if (plan.isStep()) {
      return step(plan, context, arguments, invocation);
    }
    if (plan.resumable() && ResumedCalls.take(plan.method())) {
      // the completer's run: its claim is held already, and the method's advice runs around this
      return proceed(invocation);
    }
    String followed = plan.slot() != null ? ScheduledRuns.takeFollowedSlot() : null;
    Guarded guarded;
    try {
      guarded = guarded(plan, context, arguments, followed);
    } catch (RuntimeException e) {
      if (plan.shape() == ResultShape.NOW) {
        throw e;
      }
      return later.failed(plan, e);
    }
    if (guarded == null) {
      return invocation.proceed();
    }
    String value = guarded.value();
    IdempotencyKey key = guarded.key();
    Fingerprint fingerprint = guarded.fingerprint();
    if (plan.shape() != ResultShape.NOW) {
      return later.call(plan, key, fingerprint, () -> proceed(invocation));
    }
    if (plan.slot() != null && followed == null) {
      // a slot held elsewhere is followed by calls through the proxy, every advice included
      Object proxy =
          invocation instanceof ProxyMethodInvocation proxied ? proxied.getProxy() : null;
      String slot = value;
      return scheduled.run(
          plan,
          key,
          () -> call(plan, key, fingerprint, invocation),
          proxy == null ? null : () -> ScheduledRuns.through(proxy, method, slot));
    }
    return call(plan, key, fingerprint, invocation);
  }

  /**
   * Registers a resumable method of {@code bean} (a proxy this interceptor advises) with {@code
   * completer}, under its operation, so that the completer finishes its calls by calling the bean
   * again with the arguments its client called it with.
   *
   * @throws IllegalStateException another resumable method has the same operation
   */
  void register(Completer completer, Object bean, Method method, Class<?> targetClass) {
    MethodPlan plan = planOf(method, targetClass);
    resumables.register(
        completer, plan, new JsonArguments(mapper, plan.method(), targetClass), bean);
  }

  /** The plan of {@code method} on beans of {@code targetClass}, made once. */
  MethodPlan planOf(Method method, Class<?> targetClass) {
    return plans.computeIfAbsent(
        new AnnotatedElementKey(method, targetClass),
        k -> MethodPlan.of(method, targetClass, parser, policies, mapper));
  }

  // the slot a follow-up asked for, else the one the clock is in
  private String slotOf(ScheduledSlot slot, @Nullable String followed) {
    return followed != null ? followed : slot.keyAt(clock.instant());
  }

  /** The key's value, the key and the fingerprint of a call; null when it runs unguarded. */
  private record Guarded(String value, IdempotencyKey key, Fingerprint fingerprint) {}

  private @Nullable Guarded guarded(
      MethodPlan plan,
      EvaluationContext context,
      @Nullable Object[] arguments,
      @Nullable String followed) {
    ScheduledSlot slot = plan.slot();
    String value = slot != null ? slotOf(slot, followed) : CallIdentity.keyValue(plan, context);
    if (value == null) {
      return null;
    }
    return new Guarded(
        value,
        IdempotencyKey.of(identity.scope(plan, arguments), value),
        identity.fingerprint(plan, context, arguments));
  }

  /**
   * Replaces the clock slots are read from; for tests of nodes whose clocks differ. The system's
   * UTC clock by default.
   */
  public void setClock(Clock clock) {
    this.clock = clock;
  }

  /** Stops following slots held by other nodes. */
  @Override
  public void close() {
    scheduled.close();
    if (events != null) {
      events.close();
    }
  }

  private @Nullable Object call(
      MethodPlan plan, IdempotencyKey key, Fingerprint fingerprint, MethodInvocation invocation)
      throws Exception {
    Work<@Nullable Object, Exception> work =
        inFlight.<@Nullable Object, Exception>track(ctx -> proceed(invocation));
    Engine engine = engine(plan, key, fingerprint, invocation.getArguments());
    if (SPRING_TX && !plan.declaresTransaction() && TransactionOutcomes.active()) {
      // its effect is not in the caller's transaction: settled when it returns, and outside that
      // transaction, so that a rollback of the caller never makes a retry run it again
      warnOnce(plan);
      return OutsideTransaction.call(
          () -> engine.run(OutsideTransaction.inside(work), Deferral.NONE).value());
    }
    if (SPRING_TX && plan.eventListener() && !plan.declaresTransaction() && events != null) {
      // an event listener that declares no transaction and runs outside one gets one, as a message
      // listener does, so that a store joining it commits the record with the listener's writes
      return events.inTransaction(
          () ->
              engine.run(work, TransactionOutcomes.deferral(idempotencyOf(plan).store())).value());
    }
    Deferral deferral =
        SPRING_TX ? TransactionOutcomes.deferral(idempotencyOf(plan).store()) : Deferral.NONE;
    return engine.run(work, deferral).value();
  }

  private Idempotency idempotencyOf(MethodPlan plan) {
    return plan.eventListener() && events != null ? events.idempotency() : idempotency;
  }

  /**
   * Builds the event listeners' engine now when {@code idem.events.store} asks for one of its own,
   * so that one that cannot be built (no DataSource, no transaction manager) stops the start.
   */
  public void startEventEngine() {
    if (events == null) {
      throw new IllegalStateException(
          "idem.events.store is jdbc, but the interceptor was built without the application's"
              + " bean factory, which the listeners' own store needs");
    }
    events.start();
  }

  /** How a keyed call goes through the engine: plainly, or as a resumable operation's call. */
  @FunctionalInterface
  private interface Engine {
    Executed<@Nullable Object> run(Work<@Nullable Object, Exception> work, Deferral deferral)
        throws Exception;
  }

  private Engine engine(
      MethodPlan plan, IdempotencyKey key, Fingerprint fingerprint, @Nullable Object[] arguments) {
    if (!plan.resumable()) {
      return (Work<@Nullable Object, Exception> work, Deferral deferral) ->
          idempotencyOf(plan)
              .call(key, fingerprint)
              .codec(plan.codec())
              .config(plan.config())
              .deferTo(deferral)
              .runWithStatus(work);
    }
    ResumableOperation<@Nullable Object[], @Nullable Object> operation = resumables.of(plan);
    if (operation == null) {
      throw new IllegalStateException(
          plan.operation()
              + " is resumable, but no completer has it: it is registered at start-up, for beans"
              + " created then");
    }
    if (SPRING_TX && plan.declaresTransaction() && TransactionOutcomes.joinedCallers()) {
      // its effects would roll back with its caller's, and the completer would run it alone
      throw new IllegalStateException(
          plan.operation()
              + " is resumable, so it starts a flow of its own, but its transaction joined its"
              + " caller's: declare @Transactional(propagation = REQUIRES_NEW) on it, or call it"
              + " outside a transaction");
    }
    return (Work<@Nullable Object, Exception> work, Deferral deferral) ->
        operation.<Exception>executeWithStatus(key, fingerprint, arguments, work, deferral);
  }

  // A method that names no key: a step of the guarded call running on this thread. Its outcome is
  // stored when it returns, outside any transaction, unless its own declaration puts its effects
  // in the thread's transaction (its own, since this advice runs inside @Transactional, or its
  // caller's, joined): then it is held until that transaction ends, stored after a commit and
  // freed after a rollback, so that a step never says "done" for writes that did not commit.
  private @Nullable Object step(
      MethodPlan plan,
      EvaluationContext context,
      @Nullable Object[] arguments,
      MethodInvocation invocation)
      throws Exception {
    ExecutionContext run = ExecutionContext.current().orElse(null);
    if (run == null) {
      if (!plan.required()) {
        return proceed(invocation);
      }
      throw new NotInGuardedCallException(plan.operation());
    }
    if (run.isLeaseLost()) {
      throw new LeaseLostException(
          "the lease of " + run.key() + " was lost before its step " + plan.operation() + " began");
    }
    Fingerprint input = identity.fingerprint(plan, context, arguments);
    String name = steps.next(run, plan.operation(), input);
    Work<@Nullable Object, Exception> work =
        inFlight.<@Nullable Object, Exception>track(ctx -> proceed(invocation));
    IdempotencyConfig config = plan.config().forSteps();
    Deferral deferral =
        SPRING_TX && plan.declaresTransaction()
            ? TransactionOutcomes.stepDeferral()
            : Deferral.NONE;
    if (SPRING_TX && !deferral.holds() && TransactionOutcomes.active()) {
      warnOnce(plan);
    }
    // A held step keeps its record until its transaction ends: a call in the meantime is another
    // step (a retry under its name would wait for it), and once the transaction has failed to
    // commit, the next call with the same input is its retry, under its name and downstream key.
    boolean held = deferral.holds();
    if (held) {
      TransactionOutcomes.unlessCommitted(() -> steps.ended(run, plan.operation(), input, false));
    }
    boolean ended = false;
    try {
      Object value =
          idempotency
              .call(run.keyOfStep(name), input)
              .codec(plan.codec())
              .config(config)
              .deferTo(deferral)
              .runWithStatus(work)
              .value();
      ended = true;
      return value;
    } finally {
      steps.ended(run, plan.operation(), input, ended || held);
    }
  }

  private void warnOnce(MethodPlan plan) {
    if (warned.add(plan.method())) {
      log.warn(
          "{} runs inside a transaction it does not declare: Idem stores its outcome when it"
              + " returns, outside that transaction, so a rollback of its caller does not run it"
              + " again. If its effects are in the transaction, declare @Transactional on it",
          plan.operation());
    }
  }

  private static @Nullable Object proceed(MethodInvocation invocation) throws Exception {
    try {
      return invocation.proceed();
    } catch (Exception | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new UndeclaredThrowableException(t);
    }
  }
}
