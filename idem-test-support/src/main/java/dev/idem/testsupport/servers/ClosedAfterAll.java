package dev.idem.testsupport.servers;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Closes a server when the test class's extension context closes: after every afterAll callback, so
 * after the SpringExtension has closed a {@code @DirtiesContext} context. A static
 * {@code @AfterAll} method would run first and leave the still-open context's clients reconnecting
 * to a stopped server until it closes.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final ClosedAfterAll<PrivateRedis> REDIS = ClosedAfterAll.of(PrivateRedis.start());
 * }</pre>
 *
 * @param <T> the server
 */
public final class ClosedAfterAll<T extends AutoCloseable> implements BeforeAllCallback {

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(ClosedAfterAll.class);

  private final T server;

  private ClosedAfterAll(T server) {
    this.server = server;
  }

  public static <T extends AutoCloseable> ClosedAfterAll<T> of(T server) {
    return new ClosedAfterAll<>(server);
  }

  /** The server. */
  public T get() {
    return server;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    context.getStore(NAMESPACE).put(this, server);
  }
}
