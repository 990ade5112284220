package dev.idem.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisException;
import io.lettuce.core.api.async.RedisStringAsyncCommands;
import io.lettuce.core.api.sync.RedisStringCommands;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class EvictionCheckTest {

  @Test
  void acceptsNoevictionOnEveryPrimary() {
    assertThat(EvictionCheck.warnUnlessNoEviction(backend(() -> List.of("noeviction")), "test"))
        .isTrue();
  }

  @Test
  void warnsWhenAnyPrimaryMayEvict() {
    assertThat(
            EvictionCheck.warnUnlessNoEviction(
                backend(() -> List.of("noeviction", "allkeys-lru")), "test"))
        .isFalse();
  }

  @Test
  void warnsWhenThePolicyCannotBeRead() {
    assertThat(
            EvictionCheck.warnUnlessNoEviction(
                backend(
                    () -> {
                      throw new RedisException("ERR unknown command 'CONFIG'");
                    }),
                "test"))
        .isFalse();
  }

  private static RedisBackend backend(Supplier<List<String>> policies) {
    return new RedisBackend() {
      @Override
      public io.lettuce.core.api.async.RedisScriptingAsyncCommands<byte[], byte[]>
          scriptingAsync() {
        throw new UnsupportedOperationException();
      }

      @Override
      public java.time.Duration timeout() {
        throw new UnsupportedOperationException();
      }

      @Override
      public io.netty.util.Timer timer() {
        throw new UnsupportedOperationException();
      }

      @Override
      public RedisStringCommands<byte[], byte[]> strings() {
        throw new UnsupportedOperationException();
      }

      @Override
      public RedisStringAsyncCommands<byte[], byte[]> stringsAsync() {
        throw new UnsupportedOperationException();
      }

      @Override
      public StatefulRedisPubSubConnection<byte[], byte[]> openPubSub() {
        throw new UnsupportedOperationException();
      }

      @Override
      public long waitForReplicas(int replicas, long timeoutMillis) {
        throw new UnsupportedOperationException();
      }

      @Override
      public List<byte[]> keysMatching(byte[] pattern) {
        throw new UnsupportedOperationException();
      }

      @Override
      public List<String> evictionPolicies() {
        return policies.get();
      }

      @Override
      public void close() {}
    };
  }
}
