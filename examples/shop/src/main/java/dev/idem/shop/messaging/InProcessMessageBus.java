package dev.idem.shop.messaging;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The embedded default's broker: hands each message to every subscriber on the publishing thread,
 * so a consumer's failure reaches the relay, which then leaves the message unpublished and sends it
 * again.
 */
public class InProcessMessageBus implements MessageBus {

  private final List<Consumer<Message>> subscribers = new CopyOnWriteArrayList<>();

  /** Adds a consumer of every message. */
  public void subscribe(Consumer<Message> subscriber) {
    subscribers.add(subscriber);
  }

  @Override
  public void publish(Message message) {
    for (Consumer<Message> subscriber : subscribers) {
      subscriber.accept(message);
    }
  }
}
