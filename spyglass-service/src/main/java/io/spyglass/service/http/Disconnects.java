package io.spyglass.service.http;

import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.util.BufferUtil;
import org.eclipse.jetty.util.Callback;

/**
 * Notices that a client closed its connection while its answer is still being prepared. Jetty reads
 * nothing from a connection while a request on it is handled, so a client that leaves then goes
 * unnoticed until something is written; this reads the connection itself, once it has something to
 * read: the end of the stream (or an error) means the client is gone.
 *
 * <p>Only for responses sent with {@code Connection: close}: bytes a client sends after its request
 * are read and dropped, so the connection must not serve another request.
 */
final class Disconnects {
  private Disconnects() {}

  /**
   * Calls {@code gone} when the client's connection ends, or Jetty fails the request. It may be
   * called more than once, and also when the connection closes after the answer: it must do nothing
   * once the answer is on its way.
   */
  static void watch(HttpServletRequest req, Runnable gone) {
    ServletContextRequest r = ServletContextRequest.getServletContextRequest(req);
    if (r == null) {
      return;
    }
    r.addFailureListener(failure -> gone.run());
    EndPoint ep = r.getConnectionMetaData().getConnection().getEndPoint();
    watch(ep, gone);
  }

  private static void watch(EndPoint ep, Runnable gone) {
    try {
      ep.fillInterested(
          Callback.from(
              () -> {
                try {
                  int n = ep.fill(BufferUtil.allocate(256));
                  if (n < 0) {
                    gone.run();
                  } else {
                    watch(ep, gone); // bytes after the request, or a spurious wake-up
                  }
                } catch (IOException e) {
                  gone.run();
                }
              },
              failure -> {
                if (failure instanceof TimeoutException && ep.isOpen()) {
                  watch(ep, gone); // the connection was idle, not closed: a long query is quiet
                } else {
                  gone.run();
                }
              }));
    } catch (IllegalStateException e) { // ReadPendingException among them
      // Jetty reads this connection itself: its failure listener tells
    }
  }
}
