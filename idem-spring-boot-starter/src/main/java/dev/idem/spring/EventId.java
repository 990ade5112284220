package dev.idem.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the property that identifies an application event: a record component, a method without
 * parameters, or a field readable through a getter or as a public field. An {@link Idempotent}
 * event listener ({@code @EventListener}, {@code @TransactionalEventListener}, Spring Modulith's
 * {@code @ApplicationModuleListener}) that names no key takes this value as its key, so each
 * listener handles an event once however often it is delivered: published twice, or resubmitted by
 * an event publication registry after a crash. The value, {@code toString()}ed, must be a valid key
 * (1 to 255 visible ASCII characters); the same identity must always mean the same event.
 *
 * <pre>{@code
 * public record PaymentSucceeded(@EventId String eventId, String orderNo, BigDecimal amount) {}
 * }</pre>
 */
@Target({ElementType.RECORD_COMPONENT, ElementType.METHOD, ElementType.FIELD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface EventId {}
