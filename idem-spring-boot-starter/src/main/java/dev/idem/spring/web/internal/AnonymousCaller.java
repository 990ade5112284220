package dev.idem.spring.web.internal;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.jspecify.annotations.Nullable;

/**
 * The caller name of a request without a principal, the same on both web stacks: {@code
 * anonymous@<client address>}, so that two unauthenticated clients never share a scope (neither
 * each other's answers nor one cap). Behind a reverse proxy the address is the proxy's unless the
 * application trusts its forwarded headers ({@code server.forward-headers-strategy}).
 */
public final class AnonymousCaller {

  private AnonymousCaller() {}

  /** The caller name for a client at {@code address} (an IP literal), or at an unknown one. */
  public static String at(@Nullable String address) {
    return "anonymous@" + (address == null || address.isBlank() ? "unknown" : address);
  }

  /** The caller name for a client at {@code address}, or at an unknown one when it is null. */
  public static String at(@Nullable InetSocketAddress address) {
    InetAddress ip = address == null ? null : address.getAddress();
    return at(ip == null ? null : ip.getHostAddress());
  }
}
