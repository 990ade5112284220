package dev.idem.spring.amqp.internal;

import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;

/** The root object of an {@code @IdempotentListener} key expression. */
public final class ListenerMessage {

  private final Message message;
  private final @Nullable Object payload;

  ListenerMessage(Message message, @Nullable Object payload) {
    this.message = message;
    this.payload = payload;
  }

  /** The AMQP message as received. */
  public Message getMessage() {
    return message;
  }

  /** Its properties ({@code messageId}, {@code correlationId}, {@code appId}, ...). */
  public MessageProperties getProperties() {
    return message.getMessageProperties();
  }

  /** Its application headers. */
  public Map<String, @Nullable Object> getHeaders() {
    return message.getMessageProperties().getHeaders();
  }

  /** The converted payload argument of the listener method, or null if it takes none. */
  public @Nullable Object getPayload() {
    return payload;
  }
}
