package io.spyglass.service.http;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.eclipse.jetty.http.HttpParser;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.internal.HttpConnection;

/**
 * Closes connections whose request head takes longer than a deadline to arrive: a client sending
 * headers a byte at a time would otherwise keep its connection forever, since each byte resets the
 * idle timeout. Jetty reads without a thread per connection, so such clients cost no thread; this
 * bounds how long they hold a connection. A connection that sends no request at all within the
 * deadline is closed too. Call {@link #check()} every few hundred milliseconds.
 */
final class SlowHeaderGuard {
  private final Server server;
  private final long deadlineMs;
  private final Map<EndPoint, long[]> partial = new ConcurrentHashMap<>();
  private final AtomicLong closed = new AtomicLong();
  private final LongSupplier clock;

  /**
   * @param clock the service's wall clock (epoch milliseconds), which Jetty stamps connections with
   *     too
   */
  SlowHeaderGuard(Server server, long deadlineMs, LongSupplier clock) {
    this.server = server;
    this.clock = clock;
    this.deadlineMs = deadlineMs;
  }

  /** Connections closed for a slow request head. */
  long closed() {
    return closed.get();
  }

  void check() {
    long now = clock.getAsLong();
    Set<EndPoint> seen = new HashSet<>();
    for (Connector c : server.getConnectors()) {
      for (EndPoint ep : c.getConnectedEndPoints()) {
        if (!(ep.getConnection() instanceof HttpConnection hc)) {
          continue; // e.g. a WebSocket after its upgrade
        }
        HttpParser p = hc.getParser();
        if (p.isStart() && hc.getMessagesIn() == 0) {
          // opened and silent: no request at all within the deadline
          if (now - ep.getCreatedTimeStamp() > deadlineMs) {
            closed.incrementAndGet();
            ep.close();
          }
          continue;
        }
        if (!p.inHeaderState() || p.isStart()) {
          continue; // between requests, or the head is complete
        }
        seen.add(ep);
        long[] since = partial.computeIfAbsent(ep, k -> new long[] {now, hc.getMessagesIn()});
        if (since[1] != hc.getMessagesIn()) {
          since[0] = now; // a later request on the same connection
          since[1] = hc.getMessagesIn();
        } else if (now - since[0] > deadlineMs) {
          closed.incrementAndGet();
          ep.close();
        }
      }
    }
    partial.keySet().retainAll(seen);
  }
}
