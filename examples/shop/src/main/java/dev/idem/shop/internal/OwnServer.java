package dev.idem.shop.internal;

import java.net.URI;
import org.springframework.core.env.Environment;

/**
 * Where this application serves a path, for the fake gateway's parts that call it back over HTTP
 * (the charge, the callback) when no other address is configured: read on each call, since the port
 * is known only once the server has started.
 */
public final class OwnServer {

  private OwnServer() {}

  /** {@code configured} when it is set, else {@code path} on this application's own port. */
  public static URI uri(String configured, Environment environment, String path) {
    if (!configured.isBlank()) {
      return URI.create(configured);
    }
    return URI.create(
        "http://127.0.0.1:" + environment.getProperty("local.server.port", "8080") + path);
  }
}
