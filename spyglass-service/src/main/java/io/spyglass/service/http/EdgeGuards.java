package io.spyglass.service.http;

import java.util.List;

/**
 * Which proxies the HTTP edge believes about a client's address. See {@code docs/api.md} "Limits"
 * and "Behind a reverse proxy".
 *
 * @param trustedProxies IP addresses and CIDR ranges of reverse proxies ({@code
 *     --trusted-proxies}): from their connections, the client address that counts wrong tokens is
 *     taken from {@code Forwarded} or {@code X-Forwarded-For}, and their connections are not held
 *     to {@code --max-connections-per-address}; empty (the default): no header is believed
 */
public record EdgeGuards(List<String> trustedProxies) {
  /** No trusted proxy. */
  public static final EdgeGuards DEFAULTS = new EdgeGuards(List.of());

  public EdgeGuards {
    trustedProxies = List.copyOf(trustedProxies);
    TrustedProxies.of(trustedProxies); // checked when built: an IP address or range each
  }

  public EdgeGuards withTrustedProxies(List<String> v) {
    return new EdgeGuards(v);
  }

  TrustedProxies proxies() {
    return TrustedProxies.of(trustedProxies);
  }
}
