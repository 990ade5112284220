package dev.idem.redis.internal;

import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.internal.OneShotListeners;
import io.lettuce.core.RedisException;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.nio.charset.StandardCharsets;

/**
 * One pub/sub channel whose messages are ids (digests), and the one-shot listeners of this process
 * per id. The channel is subscribed once, when this is built, so registering a listener costs no
 * round trip and cannot race the message it waits for. Lettuce resubscribes after a reconnect;
 * messages published while disconnected are lost, which is why every waiter also wakes by time.
 */
public final class Notifications implements AutoCloseable {

  private final StatefulRedisPubSubConnection<byte[], byte[]> connection;
  private final OneShotListeners<String> listeners = new OneShotListeners<>();

  /** Subscribes {@code connection} to {@code channel}; closing this closes the connection. */
  public Notifications(StatefulRedisPubSubConnection<byte[], byte[]> connection, byte[] channel) {
    this.connection = connection;
    connection.addListener(
        new RedisPubSubAdapter<>() {
          @Override
          public void message(byte[] from, byte[] message) {
            listeners.fire(new String(message, StandardCharsets.US_ASCII));
          }
        });
    try {
      connection.sync().subscribe(channel);
    } catch (RedisException e) {
      connection.close();
      throw new IdempotencyStoreException("could not subscribe to Redis: " + e.getMessage(), e);
    }
  }

  /**
   * Calls {@code listener} once, on a Lettuce thread, at the next message for {@code id}. It must
   * return quickly. Returns the action that removes it.
   */
  public Runnable listen(String id, Runnable listener) {
    return listeners.add(id, listener);
  }

  /** Whether anyone in this process listens for {@code id}. */
  public boolean hasListeners(String id) {
    return listeners.has(id);
  }

  @Override
  public void close() {
    connection.close();
  }
}
