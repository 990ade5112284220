package dev.idem.redis.internal;

import dev.idem.core.IdempotencyException;
import dev.idem.core.IdempotencyStoreException;
import dev.idem.core.StoreFullException;
import io.lettuce.core.RedisException;
import org.jspecify.annotations.Nullable;

/**
 * What a failed Redis call means to the engine: a server out of memory that refuses writes ({@code
 * maxmemory} with {@code noeviction}) is full, which fail open must never paper over; any other
 * failure is the store being unavailable.
 */
public final class RedisFailures {

  private RedisFailures() {}

  /**
   * True when {@code failure}, or what it wraps, is Redis refusing a write for memory: its {@code
   * OOM} reply, or the {@link StoreFullException} {@link #of} made of one.
   */
  public static boolean outOfMemory(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof StoreFullException
          || (t instanceof RedisException && isOom(t.getMessage()))) {
        return true;
      }
    }
    return false;
  }

  private static boolean isOom(@Nullable String message) {
    return message != null && message.startsWith("OOM");
  }

  /** The exception for {@code e}, thrown by a call to Redis. */
  public static IdempotencyException of(RedisException e) {
    String message = e.getMessage();
    if (isOom(message)) {
      return new StoreFullException("Redis is out of memory and refuses new records: " + message);
    }
    return new IdempotencyStoreException("Redis call failed: " + message, e);
  }
}
