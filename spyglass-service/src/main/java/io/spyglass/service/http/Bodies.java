package io.spyglass.service.http;

import io.spyglass.core.SpyglassClock;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Invocable;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * Request bodies read without a thread: a body is read as it arrives (Jetty calls back when bytes
 * come) and the request goes to its handler only once the whole body is in, so the handler's
 * blocking reads never wait on the network and a slow client holds a connection, never a thread.
 * Every read has a deadline. A body refused before it was read is read and dropped, for a moment at
 * most, before the answer, so that a client still sending sees the answer rather than a reset.
 */
final class Bodies {
  /** The most of a refused body read and dropped after the answer. */
  static final long DRAIN_BYTES = 64L << 20;

  /** How long a refused body is read and dropped after the answer. */
  static final long DRAIN_MS = 2_000;

  private Bodies() {}

  /** Whether a request says a body follows (a positive Content-Length, or chunks). */
  static boolean expected(Request req) {
    return req.getLength() > 0
        || req.getHeaders()
            .contains(HttpHeader.TRANSFER_ENCODING, HttpHeaderValue.CHUNKED.asString());
  }

  /**
   * Whether the client waits for {@code 100 Continue} before it sends its body: then a refusal
   * needs no draining, it sends nothing more.
   */
  static boolean waitsToSend(Request req) {
    return req.getHeaders().contains(HttpHeader.EXPECT, HttpHeaderValue.CONTINUE.asString());
  }

  /**
   * Reads and drops what is left of a body, up to {@link #DRAIN_BYTES} or for {@link #DRAIN_MS},
   * without a thread, then completes {@code done} (the answer went before; Jetty closes the
   * connection when body bytes are left).
   */
  static void drain(Request req, Callback done) {
    new Drain(req, done).start();
  }

  private static final class Drain implements Invocable.Task {
    private final Request req;
    private final Callback done;
    private long read;
    private boolean finished;
    private Scheduler.Task timer;

    Drain(Request req, Callback done) {
      this.req = req;
      this.done = done;
    }

    void start() {
      Scheduler.Task t =
          req.getComponents()
              .getScheduler()
              .schedule(this::finish, DRAIN_MS, TimeUnit.MILLISECONDS);
      synchronized (this) {
        timer = t;
      }
      run();
    }

    @Override
    public void run() {
      synchronized (this) {
        while (!finished) {
          Content.Chunk c = req.read();
          if (c == null) {
            req.demand(this);
            return;
          }
          read += c.remaining();
          c.release();
          if (c.isLast() || Content.Chunk.isFailure(c) || read >= DRAIN_BYTES) {
            break;
          }
        }
      }
      finish();
    }

    private void finish() {
      synchronized (this) {
        if (finished) {
          return;
        }
        finished = true;
        if (timer != null) {
          timer.cancel();
        }
      }
      done.succeeded();
    }

    @Override
    public InvocationType getInvocationType() {
      return InvocationType.NON_BLOCKING;
    }
  }

  /** What a body that could not be read whole becomes: the answer to send instead. */
  interface Refusal extends Consumer<ApiException> {}

  /**
   * Reads a whole body of at most {@code limit} bytes, then hands the request, with the body ready,
   * to {@code next}; the body is also the request attribute {@link #ATTRIBUTE} (bytes).
   *
   * <p>The body must keep to a deadline: {@code timeoutMs} from the start, plus one second for each
   * {@code minBytesPerSecond} that arrived; a body behind it, or larger than {@code limit}, goes to
   * {@code refuse} instead (408 or 413). The time is {@code clock}'s monotonic one.
   */
  static void load(
      Request req,
      Response res,
      Callback cb,
      Handler next,
      int limit,
      ApiException tooLarge,
      long timeoutMs,
      long minBytesPerSecond,
      Refusal refuse,
      SpyglassClock clock) {
    new Loader(req, res, cb, next, limit, tooLarge, timeoutMs, minBytesPerSecond, refuse, clock)
        .start();
  }

  /** The request attribute that holds a body read by {@link #load}, as bytes. */
  static final String ATTRIBUTE = "spyglass.body";

  private static final class Loader implements Invocable.Task {
    private final Request req;
    private final Response res;
    private final Callback cb;
    private final Handler next;
    private final int limit;
    private final ApiException tooLarge;
    private final long timeoutMs;
    private final long minBytesPerSecond;
    private final Refusal refuse;
    private final SpyglassClock clock;
    private final long startNanos;
    private byte[] body;
    private int size;
    private boolean finished;
    private Scheduler.Task timer;

    Loader(
        Request req,
        Response res,
        Callback cb,
        Handler next,
        int limit,
        ApiException tooLarge,
        long timeoutMs,
        long minBytesPerSecond,
        Refusal refuse,
        SpyglassClock clock) {
      this.clock = clock;
      this.startNanos = clock.nanos();
      this.req = req;
      this.res = res;
      this.cb = cb;
      this.next = next;
      this.limit = limit;
      this.tooLarge = tooLarge;
      this.timeoutMs = timeoutMs;
      this.minBytesPerSecond = minBytesPerSecond;
      this.refuse = refuse;
      // grown as bytes arrive: a declared length alone reserves no memory
      long declared = req.getLength();
      this.body =
          new byte[(int) Math.min(limit, declared > 0 ? Math.min(declared, 64 << 10) : 16 << 10)];
    }

    void start() {
      schedule();
      read(false);
    }

    /** The time by which the bytes read so far should have come, in ms from the start. */
    private long dueMs() {
      return timeoutMs + size * 1000L / minBytesPerSecond;
    }

    private synchronized void schedule() {
      if (finished) {
        return;
      }
      long elapsedMs = clock.msSince(startNanos);
      timer =
          req.getComponents()
              .getScheduler()
              .schedule(this::check, Math.max(1, dueMs() - elapsedMs), TimeUnit.MILLISECONDS);
    }

    private void check() {
      synchronized (this) {
        if (finished) {
          return;
        }
        long elapsedMs = clock.msSince(startNanos);
        if (elapsedMs < dueMs()) {
          schedule(); // more came meanwhile: the deadline moved
          return;
        }
        finished = true;
      }
      refuse.accept(
          new ApiException(
              408,
              "The request body came too slowly: "
                  + size
                  + " bytes in "
                  + clock.msSince(startNanos)
                  + " ms (a body has "
                  + timeoutMs / 1000.0
                  + " s plus 1 s per "
                  + minBytesPerSecond
                  + " bytes)",
              "Send the body at once after the request head"));
    }

    @Override
    public void run() {
      read(true);
    }

    private void read(boolean fromDemand) {
      ApiException refused = null;
      synchronized (this) {
        if (finished) {
          return; // answered already (the deadline passed)
        }
        while (!finished) {
          Content.Chunk c = req.read();
          if (c == null) {
            req.demand(this);
            return;
          }
          if (Content.Chunk.isFailure(c)) {
            finished = true;
            refused =
                new ApiException(
                    c.getFailure() instanceof java.util.concurrent.TimeoutException ? 408 : 400,
                    "The request body could not be read: it was cut short or came too slowly",
                    "Send the whole body at once after the request head");
            break;
          }
          int n = c.remaining();
          if ((long) size + n > limit) {
            c.release();
            finished = true;
            refused = tooLarge;
            break;
          }
          if (size + n > body.length) {
            long declared = req.getLength();
            long most = declared > 0 ? Math.min(limit, declared) : limit;
            body = Arrays.copyOf(body, (int) Math.min(most, Math.max(size + n, 2L * body.length)));
          }
          c.get(body, size, n);
          size += n;
          boolean last = c.isLast();
          c.release();
          if (last) {
            finished = true;
            break;
          }
        }
        if (timer != null) {
          timer.cancel();
        }
      }
      if (refused != null) {
        refuse.accept(refused);
      } else if (fromDemand) {
        req.getContext().execute(this::handle); // a callback of the network: no blocking here
      } else {
        handle();
      }
    }

    private void handle() {
      byte[] bytes = size == body.length ? body : Arrays.copyOf(body, size);
      req.setAttribute(ATTRIBUTE, bytes);
      Request loaded = new Loaded(req, bytes);
      try {
        if (!next.handle(loaded, res, cb)) {
          Response.writeError(req, res, cb, 404);
        }
      } catch (Throwable t) {
        Response.writeError(req, res, cb, t);
      }
    }

    @Override
    public InvocationType getInvocationType() {
      return InvocationType.NON_BLOCKING;
    }
  }

  /** A request whose body is read already: its reads are served from memory at once. */
  private static final class Loaded extends Request.Wrapper {
    private Content.Chunk chunk;

    Loaded(Request wrapped, byte[] body) {
      super(wrapped);
      this.chunk = Content.Chunk.from(ByteBuffer.wrap(body), true);
    }

    @Override
    public synchronized Content.Chunk read() {
      Content.Chunk c = chunk;
      if (c == null) {
        return Content.Chunk.EOF;
      }
      chunk = null;
      return c;
    }

    @Override
    public void demand(Runnable demandCallback) {
      demandCallback.run(); // a read returns at once
    }
  }
}
