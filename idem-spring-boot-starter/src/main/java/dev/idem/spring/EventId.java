package dev.idem.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the property that identifies an application event: a record component, a public instance
 * method without parameters, or an instance field that is public or has a getter (mark one of them,
 * not a field and its getter). An {@link Idempotent} event listener ({@code @EventListener},
 * {@code @TransactionalEventListener}, Spring Modulith's {@code @ApplicationModuleListener}) that
 * names no key is keyed by {@code <the event's simple class name>/<this value>} ({@code
 * PaymentSucceeded/p-17}), so each listener handles an event once however often it is delivered:
 * published twice, or resubmitted by an event publication registry after a crash. The value is
 * {@code toString()}ed; the whole key must be 1 to 255 visible ASCII characters, and a null or
 * empty value is a missing key. The same identity must always mean the same event: a redelivery
 * under it is not compared with the first.
 *
 * <pre>{@code
 * public record PaymentSucceeded(@EventId String eventId, String orderNo, BigDecimal amount) {}
 * }</pre>
 */
@Target({ElementType.RECORD_COMPONENT, ElementType.METHOD, ElementType.FIELD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface EventId {}
