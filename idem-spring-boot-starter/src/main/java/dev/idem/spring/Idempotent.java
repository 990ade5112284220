package dev.idem.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method whose effect must happen once per idempotency key.
 *
 * <p>On a Spring MVC handler method the starter's filter protects POST and PATCH requests to it:
 * the key comes from the {@code Idempotency-Key} header (or an {@code X-Idempotent-Token}), the
 * fingerprint from method, the request's path and body, and repeats get the first response. On
 * other bean methods {@link #key()} names the key as a SpEL expression over the method's arguments
 * ({@code #orderNo}, {@code #cmd.id}, {@code #p0}), the return value is stored (as JSON, with the
 * application's Jackson mapper) and a repeat gets it back without the method running again.
 *
 * <p>Durations left at their defaults take the values of the operation's policy ({@code
 * idem.policies.<operation>.*}) or of the global {@code idem.defaults.*} properties.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Idempotent {

  /**
   * A SpEL expression for the key on bean methods, evaluated over the arguments by name ({@code
   * #orderNo}, {@code #cmd.id}) or position ({@code #p0}, {@code #a0}); its value (converted with
   * {@code toString()}) must be 1 to 255 visible ASCII characters. Ignored (left empty) for web
   * handlers, whose key comes from the request. Left empty on a {@code @Scheduled} method, the key
   * is the schedule's slot; on an event listener ({@code @EventListener},
   * {@code @TransactionalEventListener}, Spring Modulith's {@code @ApplicationModuleListener}) it
   * is the event's simple class name and the identity it declares with {@link EventId} ({@code
   * PaymentSucceeded/p-17}); on any other bean method, the method is a step of the guarded call
   * that runs it ({@link dev.idem.core.ExecutionContext#step}): its result is stored once per call
   * key, and a step another run holds is waited for up to two leases, whatever {@link #waitFor()}
   * says.
   */
  String key() default "";

  /**
   * A SpEL expression, like {@link #key()}, for what the call looked like: a repeat whose
   * fingerprint differs is refused with {@link dev.idem.core.KeyReuseException}. Its value is
   * written as JSON and canonicalised. Empty (the default) compares every argument: the argument
   * itself when the method takes one, else an object of the arguments by parameter name (so {@link
   * #ignoreFields()} names {@code "cmd.requestedAt"}). Bean methods only; web handlers fingerprint
   * the request.
   */
  String fingerprint() default "";

  /**
   * False to compare nothing when no {@link #fingerprint()} is named: the key alone names the call,
   * and a repeat with other arguments gets the first call's result. True (the default) compares
   * every argument; a method with an argument that cannot be compared (a callback, a stream) then
   * stops the application at start-up until it names a fingerprint or sets this to false.
   */
  boolean compareArguments() default true;

  /**
   * JSON fields left out of the fingerprint, as dot-separated paths from the document's root
   * ({@code "requestedAt"}, {@code "meta.traceId"}); a path goes through arrays, so {@code
   * "items.note"} names the {@code note} of every element of {@code items}. Added to the
   * operation's {@code ignore-fields} policy property.
   */
  String[] ignoreFields() default {};

  /**
   * The operation name: part of every key's scope and the name of its policy. Empty means {@code
   * "<METHOD> <route template>"} for web handlers and {@code "<SimpleClassName>.<method>"} for bean
   * methods.
   */
  String operation() default "";

  /**
   * False to let calls without a key through unprotected instead of refusing them: requests without
   * a key header (400 otherwise), bean calls whose key expression gives null or blank ({@link
   * dev.idem.core.InvalidKeyException} otherwise), or calls of a keyless method with no guarded
   * call to be a step of ({@link dev.idem.spring.NotInGuardedCallException} otherwise).
   */
  boolean required() default true;

  /**
   * True to have a call finished without its client. Once the call holds its key, its arguments are
   * written (as JSON, with the application's mapper) to the completer's resume log; a call that
   * failed retryably, or whose process died, and that nobody called again is run again by the
   * completer after its lease ({@code idem.completer.*}), through this bean and every advice on it,
   * from the steps that ended; the answer is stored for the client to get when it comes back. A
   * call that keeps failing is abandoned after {@code idem.completer.max-attempts}, for an operator
   * to retry or drop through the Actuator endpoint. Bean methods only, with a key expression,
   * returning their value itself (not a future or a publisher); a method that does not qualify
   * stops the application at start-up.
   */
  boolean resumable() default false;

  /**
   * How long a duplicate waits for the first request: {@code "0"} refuses it at once (409), a
   * positive duration waits up to that long; empty (the default) takes the policy's setting. A
   * duration as Spring Boot's properties take them ({@code "500ms"}, {@code "5s"}, {@code "PT5S"};
   * a bare number is milliseconds), and it may be a placeholder ({@code "${payments.wait:2s}"}). A
   * value that is not a duration, or is negative, stops the application at start-up.
   */
  String waitFor() default "";

  /**
   * The lease, as {@link #waitFor()} takes durations ({@code "30s"}, {@code
   * "${payments.lease:30s}"}); empty (the default) takes the policy's setting.
   */
  String lease() default "";

  /**
   * How long the outcome is replayed, as {@link #waitFor()} takes durations ({@code "24h"}); empty
   * (the default) takes the policy's setting.
   */
  String retention() default "";

  /**
   * How long a duplicate waits, in milliseconds: 0 refuses it at once, negative (the default) takes
   * the policy's setting. Setting it beside {@link #waitFor()} stops the application at start-up.
   *
   * @deprecated since 0.1, for removal in the next release: {@link #waitFor()}, which takes {@code
   *     "500ms"} and placeholders
   */
  @Deprecated(since = "0.1", forRemoval = true)
  long waitMillis() default -1;

  /**
   * The lease in seconds; 0 (the default) takes the policy's setting.
   *
   * @deprecated since 0.1, for removal in the next release: {@link #lease()}
   */
  @Deprecated(since = "0.1", forRemoval = true)
  long leaseSeconds() default 0;

  /**
   * How long the outcome is replayed, in seconds; 0 (the default) takes the policy's setting.
   *
   * @deprecated since 0.1, for removal in the next release: {@link #retention()}
   */
  @Deprecated(since = "0.1", forRemoval = true)
  long retentionSeconds() default 0;
}
