package dev.idem.spring;

import dev.idem.core.IdempotencyException;

/**
 * An {@link Idempotent @Idempotent} method that names no key was called while no guarded call ran
 * on the thread: such a method is a step of the call that runs it (an HTTP request with a key, a
 * keyed method, a scheduled job, a RabbitMQ listener, a Kafka record listener), and has no key of
 * its own to run once under.
 */
public class NotInGuardedCallException extends IdempotencyException {

  public NotInGuardedCallException(String operation) {
    super(
        "@Idempotent "
            + operation
            + " names no key, so it runs as a step of the guarded call around it, and none runs"
            + " on this thread: call it from a guarded request, a keyed @Idempotent method, a"
            + " scheduled job or an idempotent listener (RabbitMQ, or Kafka per record), or name a"
            + " key expression");
  }
}
