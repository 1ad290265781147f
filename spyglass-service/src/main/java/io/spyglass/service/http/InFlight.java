package io.spyglass.service.http;

import io.spyglass.core.SpyglassClock;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The requests being handled, each counted from its arrival until its answer is written (or fails),
 * so that a stop lets them finish: after {@link #drain} a new request is refused with 503, and
 * {@link #awaitDrained} waits until none is left. An answer that a route completes later (a {@code
 * POST /api/query} that waits for its query's end, a stream) counts until it is written; a
 * WebSocket counts until its upgrade is answered.
 *
 * <p>The outermost handler: a request is counted before the edge reads its body. Thread-safe.
 */
final class InFlight extends Handler.Wrapper {
  private final Object lock = new Object();
  private final SpyglassClock clock;
  private long count;
  private boolean draining;

  /**
   * @param clock the service's clock: its monotonic one times the wait for the last answers
   */
  InFlight(SpyglassClock clock) {
    this.clock = clock;
  }

  @Override
  public boolean handle(Request req, Response res, Callback cb) throws Exception {
    Counted counted = new Counted(cb);
    boolean refuse;
    synchronized (lock) {
      count++;
      refuse = draining;
    }
    if (refuse) {
      refuse(res, counted);
      return true;
    }
    boolean handled = false;
    try {
      handled = super.handle(req, res, counted);
      return handled;
    } finally {
      if (!handled) {
        counted.end(); // not taken (Jetty answers it itself), or thrown: not in flight here
      }
    }
  }

  /** From now on, new requests are refused with 503; those in flight go on. */
  void drain() {
    synchronized (lock) {
      draining = true;
    }
  }

  /** Requests being handled now. */
  long count() {
    synchronized (lock) {
      return count;
    }
  }

  /** Waits until no request is in flight; true if none is within the timeout. */
  boolean awaitDrained(long timeoutMs) throws InterruptedException {
    long deadline = clock.deadlineIn(timeoutMs);
    synchronized (lock) {
      while (count > 0) {
        long left = clock.msLeft(deadline);
        if (left <= 0) {
          return false;
        }
        lock.wait(left);
      }
      return true;
    }
  }

  private void done() {
    synchronized (lock) {
      if (--count == 0) {
        lock.notifyAll();
      }
    }
  }

  private static void refuse(Response res, Callback cb) {
    ApiException e =
        new ApiException(503, "The service is stopping", "Retry once it is back")
            .header("Retry-After", "5");
    WebUi.ALL.forEach((k, v) -> res.getHeaders().put(k, v));
    e.headers().forEach((k, v) -> res.getHeaders().put(k, v));
    res.getHeaders().put(HttpHeader.CONTENT_TYPE, Json.TYPE);
    res.getHeaders().put(HttpHeader.CONNECTION, "close");
    res.setStatus(e.status());
    res.write(
        true, ByteBuffer.wrap(Json.write(Json.error(e)).getBytes(StandardCharsets.UTF_8)), cb);
  }

  /** Ends the request's count when Jetty is told it completed, once. */
  private final class Counted extends Callback.Nested {
    private boolean ended;

    Counted(Callback cb) {
      super(cb);
    }

    @Override
    public void succeeded() {
      end();
      super.succeeded();
    }

    @Override
    public void failed(Throwable x) {
      end();
      super.failed(x);
    }

    void end() {
      synchronized (this) {
        if (ended) {
          return;
        }
        ended = true;
      }
      done();
    }
  }
}
