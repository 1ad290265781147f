package io.spyglass.service.http;

/**
 * How result streams (SSE and WebSocket) treat their clients.
 *
 * @param bufferResults results that may arrive while a client's connection is full before it is
 *     dropped (per stream; per connection for a WebSocket)
 * @param slowClientMs how long a connection may stay full before its client is dropped
 * @param heartbeatMs how often an idle SSE stream gets a comment line, so that a client that left
 *     is noticed
 */
public record StreamSettings(int bufferResults, long slowClientMs, long heartbeatMs) {
  public static final StreamSettings DEFAULTS = new StreamSettings(1_000, 30_000, 10_000);

  public StreamSettings {
    if (bufferResults < 1 || slowClientMs < 1 || heartbeatMs < 1) {
      throw new IllegalArgumentException("stream settings must be positive");
    }
  }
}
