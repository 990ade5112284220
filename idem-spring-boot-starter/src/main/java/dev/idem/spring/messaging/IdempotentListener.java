package dev.idem.spring.messaging;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a Spring AMQP {@code @RabbitListener} or Spring Kafka {@code @KafkaListener} method apply
 * each message once per {@code (group, message id)}, however often the broker delivers it.
 *
 * <pre>{@code
 * @IdempotentListener("loyalty")
 * @RabbitListener(queues = "orders.paid")          // or @KafkaListener(topics = "orders.paid")
 * public void addPoints(OrderPaid event) {
 *   points.add(event.customer(), event.amount());  // once per message id
 * }
 * }</pre>
 *
 * <p>The message id is the AMQP {@code message-id} property or the Kafka record's {@code
 * message-id} header, or what {@link #key()} computes. A redelivery of a message that was processed
 * before is acknowledged (its offset committed) without running the method. A message without an id
 * does not run the method: RabbitMQ rejects it without requeue (dead-lettered, if the queue has a
 * dead-letter exchange); on Kafka the container's error handler gets an {@code
 * InvalidKeyException}. A Kafka batch listener ({@code List} of records or payloads) is called with
 * the records not processed before.
 *
 * <p>With the JDBC store on the application's DataSource (or {@code idem.amqp.store} / {@code
 * idem.kafka.store} set to {@code jdbc}) and a transaction manager for it, the record that marks
 * the message as processed is written in the same transaction as the method's writes (the advice
 * starts one, or joins the caller's), and the message is acknowledged only after that transaction
 * committed. A method with this annotation and neither listener annotation stops the start.
 *
 * <p>This is a separate annotation from {@link dev.idem.spring.Idempotent} because a consumer is
 * not a call with a result: nothing is replayed to a caller, a duplicate is a success to
 * acknowledge, a copy in flight is requeued or waited for rather than answered 409, and the key
 * usually comes from the message's properties, which a method advice keyed on arguments cannot see.
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
   * property, or the Kafka {@code message-id} header. On RabbitMQ the root object has {@code
   * message} (the AMQP message), {@code properties}, {@code headers} and {@code payload} (the
   * converted payload argument); on Kafka {@code record}, {@code key}, {@code headers}, {@code
   * topic}, {@code partition}, {@code offset} and {@code payload}. Method arguments are variables
   * by name ({@code #event}) and position ({@code #p0}). A null or empty value is a missing id.
   */
  String key() default "";
}
