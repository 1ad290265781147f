package io.spyglass.service.http;

import java.util.List;
import java.util.Locale;

/**
 * What the HTTP edge lets one connection, address, user or web page do, so that none of them can
 * take the service down or drive it from another site. See {@code docs/api.md} "Limits".
 *
 * @param maxConnections most connections open at once; 0 for three quarters of the process's
 *     open-file limit. At the limit the server stops accepting until some close
 * @param maxConnectionsPerAddress most connections open at once from one client address; more are
 *     closed as soon as they open
 * @param maxStreamsPerUser most result streams (SSE streams and WebSockets) one user has open at
 *     once; more are refused with 429
 * @param bodyTimeoutMs how long a request body may take to arrive, on top of the time its size
 *     needs at {@code minBodyBytesPerSecond}; a slower body is answered 408 and its connection
 *     closed
 * @param minBodyBytesPerSecond the slowest rate a request body may arrive at, past {@code
 *     bodyTimeoutMs}
 * @param maxAuthFailuresPerMinute wrong tokens one client address may send a minute (a burst of as
 *     many, refilled over the minute); beyond it its wrong tokens are answered 429 (valid ones are
 *     served)
 * @param allowedHosts {@code Host} names accepted besides loopback names and the bound address;
 *     when empty, {@code Host} is checked only without tokens. {@code *} accepts any
 * @param allowedOrigins web origins (e.g. {@code https://dash.example.com}) whose pages may call
 *     the API: they pass the {@code Origin} check and get CORS headers
 * @param metricsWithoutToken serve {@code /metrics} without a token even when tokens are required
 */
public record EdgeSettings(
    int maxConnections,
    int maxConnectionsPerAddress,
    int maxStreamsPerUser,
    long bodyTimeoutMs,
    long minBodyBytesPerSecond,
    int maxAuthFailuresPerMinute,
    List<String> allowedHosts,
    List<String> allowedOrigins,
    boolean metricsWithoutToken) {

  /**
   * Connections: three quarters of the open-file limit, 1,024 per address; 100 streams per user;
   * bodies within 10 s plus their size at 64 KiB/s; 30 wrong tokens a minute per address.
   */
  public static final EdgeSettings DEFAULTS =
      new EdgeSettings(0, 1_024, 100, 10_000, 64 << 10, 30, List.of(), List.of(), false);

  public EdgeSettings {
    if (maxConnections < 0) {
      throw new IllegalArgumentException("max-connections must not be negative (0: automatic)");
    }
    if (maxConnectionsPerAddress < 1 || maxStreamsPerUser < 1 || maxAuthFailuresPerMinute < 1) {
      throw new IllegalArgumentException(
          "max-connections-per-address, max-streams-per-user and max-auth-failures-per-minute"
              + " must be at least 1");
    }
    if (bodyTimeoutMs < 100 || minBodyBytesPerSecond < 1) {
      throw new IllegalArgumentException(
          "the request body timeout must be at least 100 ms and its minimum rate positive");
    }
    allowedHosts = allowedHosts.stream().map(h -> h.strip().toLowerCase(Locale.ROOT)).toList();
    allowedOrigins = allowedOrigins.stream().map(EdgeSettings::origin).toList();
  }

  /** An origin as browsers send it: {@code scheme://host[:port]}, lower case, no path. */
  static String origin(String o) {
    String s = o.strip().toLowerCase(Locale.ROOT);
    while (s.endsWith("/")) {
      s = s.substring(0, s.length() - 1);
    }
    if (!s.matches("https?://[^/?#\\s]+")) {
      throw new IllegalArgumentException(
          "an allowed origin is scheme://host[:port], e.g. https://dash.example.com: '"
              + o
              + "' is not");
    }
    return s;
  }

  public EdgeSettings withMaxConnections(int v) {
    return new EdgeSettings(
        v,
        maxConnectionsPerAddress,
        maxStreamsPerUser,
        bodyTimeoutMs,
        minBodyBytesPerSecond,
        maxAuthFailuresPerMinute,
        allowedHosts,
        allowedOrigins,
        metricsWithoutToken);
  }

  public EdgeSettings withMaxConnectionsPerAddress(int v) {
    return new EdgeSettings(
        maxConnections,
        v,
        maxStreamsPerUser,
        bodyTimeoutMs,
        minBodyBytesPerSecond,
        maxAuthFailuresPerMinute,
        allowedHosts,
        allowedOrigins,
        metricsWithoutToken);
  }

  public EdgeSettings withMaxStreamsPerUser(int v) {
    return new EdgeSettings(
        maxConnections,
        maxConnectionsPerAddress,
        v,
        bodyTimeoutMs,
        minBodyBytesPerSecond,
        maxAuthFailuresPerMinute,
        allowedHosts,
        allowedOrigins,
        metricsWithoutToken);
  }

  public EdgeSettings withBody(long timeoutMs, long minBytesPerSecond) {
    return new EdgeSettings(
        maxConnections,
        maxConnectionsPerAddress,
        maxStreamsPerUser,
        timeoutMs,
        minBytesPerSecond,
        maxAuthFailuresPerMinute,
        allowedHosts,
        allowedOrigins,
        metricsWithoutToken);
  }

  public EdgeSettings withMaxAuthFailuresPerMinute(int v) {
    return new EdgeSettings(
        maxConnections,
        maxConnectionsPerAddress,
        maxStreamsPerUser,
        bodyTimeoutMs,
        minBodyBytesPerSecond,
        v,
        allowedHosts,
        allowedOrigins,
        metricsWithoutToken);
  }

  public EdgeSettings withAllowed(List<String> hosts, List<String> origins) {
    return new EdgeSettings(
        maxConnections,
        maxConnectionsPerAddress,
        maxStreamsPerUser,
        bodyTimeoutMs,
        minBodyBytesPerSecond,
        maxAuthFailuresPerMinute,
        hosts,
        origins,
        metricsWithoutToken);
  }

  public EdgeSettings withMetricsWithoutToken(boolean v) {
    return new EdgeSettings(
        maxConnections,
        maxConnectionsPerAddress,
        maxStreamsPerUser,
        bodyTimeoutMs,
        minBodyBytesPerSecond,
        maxAuthFailuresPerMinute,
        allowedHosts,
        allowedOrigins,
        v);
  }
}
