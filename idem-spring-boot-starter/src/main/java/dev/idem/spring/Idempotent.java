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
 * fingerprint from method, route template and body, and repeats get the first response. On other
 * bean methods {@link #key()} names the key as a SpEL expression.
 *
 * <p>Numeric attributes left at their defaults take the values of the operation's policy ({@code
 * idem.policies.<operation>.*}) or of the global {@code idem.*} properties.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Idempotent {

  /** A SpEL expression for the key on non-web methods; ignored (left empty) for web handlers. */
  String key() default "";

  /**
   * The operation name: part of every key's scope and the name of its policy. Empty means {@code
   * "<METHOD> <route template>"} for web handlers.
   */
  String operation() default "";

  /** False to let requests without a key through unprotected instead of refusing them with 400. */
  boolean required() default true;

  /**
   * How long a duplicate waits for the first request: 0 refuses it at once (409), a positive value
   * waits up to that many milliseconds, negative (the default) takes the policy's setting.
   */
  long waitMillis() default -1;

  /** The lease in seconds; 0 (the default) takes the policy's setting. */
  long leaseSeconds() default 0;

  /** How long the outcome is replayed, in seconds; 0 (the default) takes the policy's setting. */
  long retentionSeconds() default 0;
}
