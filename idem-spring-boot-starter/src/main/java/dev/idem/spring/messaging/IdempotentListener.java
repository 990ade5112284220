package dev.idem.spring.messaging;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a Spring AMQP {@code @RabbitListener} method apply each message once per {@code (group,
 * message id)}, however often the broker delivers it.
 *
 * <pre>{@code
 * @IdempotentListener("loyalty")
 * @RabbitListener(queues = "orders.paid")
 * public void addPoints(OrderPaid event) {
 *   points.add(event.customer(), event.amount());  // once per message id
 * }
 * }</pre>
 *
 * <p>The message id is the AMQP {@code message-id} property, or what {@link #key()} computes. A
 * message without one is refused: rejected without requeue (dead-lettered, if the queue has a
 * dead-letter exchange) and logged; the method does not run. A redelivery of a message that was
 * processed before is acknowledged without running the method.
 *
 * <p>With the JDBC store on the application's DataSource and a transaction manager for it, the
 * record that marks the message as processed is written in the same transaction as the method's
 * writes (the advice starts one, or joins the caller's), and the message is acknowledged only after
 * that transaction committed. Acknowledgement mode AUTO (Spring's default) is meant: the container
 * acknowledges when the method returns. With {@code @RabbitListener(ackMode = "MANUAL")} the advice
 * acknowledges after the commit itself and the method must not.
 *
 * <p>This is a separate annotation from {@link dev.idem.spring.Idempotent} because a consumer is
 * not a call with a result: nothing is replayed to a caller, a duplicate is a success to
 * acknowledge, a copy in flight is requeued rather than answered 409, and the key usually comes
 * from the message's properties, which a method advice keyed on arguments cannot see.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface IdempotentListener {

  /**
   * The consumer group (placeholders such as {@code ${app.group}} are resolved): part of every key,
   * so two groups process the same message independently, and the name of the policy {@code
   * idem.policies.<group>.*}. Keep it stable: a new name forgets which messages were processed.
   */
  String value();

  /**
   * A SpEL expression for the message id; empty (the default) takes the AMQP {@code message-id}
   * property. The root object has {@code message} (the AMQP message), {@code properties}, {@code
   * headers} and {@code payload} (the converted payload argument); method arguments are variables
   * by name ({@code #event}) and position ({@code #p0}). A null or empty value is a missing id.
   */
  String key() default "";
}
