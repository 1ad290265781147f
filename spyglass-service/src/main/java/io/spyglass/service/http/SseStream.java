package io.spyglass.service.http;

import io.spyglass.service.metrics.ServiceMetrics;
import io.spyglass.service.query.QueryManager;
import io.spyglass.service.query.ResultLog;
import io.spyglass.service.query.ServiceQuery;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import org.eclipse.jetty.ee10.servlet.HttpOutput;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.io.SocketChannelEndPoint;
import org.eclipse.jetty.server.internal.HttpConnection;

/**
 * One client reading a query's results as Server-Sent Events, written without blocking: the
 * servlet's non-blocking output ({@link WriteListener}) takes the next result only when the
 * connection can take it, so no thread ever waits on a slow client. Each result is one {@code
 * event: result} whose {@code id:} is its number in the query's {@link ResultLog}; after the final
 * result (or an {@code event: error} when the query failed) the stream ends.
 *
 * <p>A client that stops reading is dropped, with a last {@code event: error}, when more than
 * {@link StreamSettings#bufferResults()} results arrived while its connection was full, when it
 * stayed full for {@link StreamSettings#slowClientMs()}, or when results it had not read are no
 * longer kept. The error event reaches it even though its connection is full: the connection's
 * kernel send buffer is kept small ({@link #SEND_BUFFER_BYTES}) and is raised by {@link
 * #LAST_WORDS_ROOM} at the drop, which makes room for the rest of the result being written and the
 * error after it; the response then ends and the kernel delivers all of it, the error last, when
 * the client reads again. Where the room is not enough, the error goes out as the client reads, and
 * a client that reads nothing more for {@code slowClientMs} is cut off.
 */
final class SseStream implements ResultLog.Subscriber, WriteListener, AsyncListener {
  static final String KIND = "sse";
  private static final byte[] HEARTBEAT = ": keep-alive\n\n".getBytes(StandardCharsets.UTF_8);

  /**
   * The kernel send buffer of a stream's connection, in bytes. Small, so that a client that stops
   * reading has little queued ahead of its error event (an auto-tuned buffer grows to megabytes on
   * loopback), and so that raising it stays within the system's limit. Results are small and
   * frequent, not bulk data: this bounds a stream to 64 KiB per round trip.
   */
  static final int SEND_BUFFER_BYTES = 64 * 1024;

  /** How much a dropped stream's send buffer is raised, to make room for its last words. */
  static final int LAST_WORDS_ROOM = 64 * 1024;

  private final ServiceQuery query;
  private final QueryManager manager;
  private final ServiceMetrics metrics;
  private final Streams streams;
  private final HttpServletRequest req;
  private final HttpServletResponse res;
  private final CompletableFuture<Void> done = new CompletableFuture<>();
  private ServletOutputStream out;
  private long cursor;

  /** Results numbered above it were emitted after the stream began: their delivery is live. */
  private long liveAfterId = Long.MAX_VALUE;

  private boolean unflushed = true; // the first flush sends the headers
  private boolean heartbeatDue;
  private boolean finalSent;
  private boolean errorSent;
  private byte[] lastWords;
  private boolean dropped;
  private boolean finished;
  private long blockedSinceMs;
  private long blockedAtLastId;
  private long writesCompleted; // times the connection took a pending write: progress
  private long writesCompletedAtCheck = -1;

  SseStream(
      ServiceQuery query,
      long afterId,
      QueryManager manager,
      ServiceMetrics metrics,
      Streams streams,
      HttpServletRequest req,
      HttpServletResponse res) {
    this.query = query;
    this.cursor = afterId;
    this.manager = manager;
    this.metrics = metrics;
    this.streams = streams;
    this.req = req;
    this.res = res;
  }

  /** Starts streaming (the request must be asynchronous already); completes when it ends. */
  CompletableFuture<Void> start() throws IOException {
    res.setStatus(200);
    res.setCharacterEncoding("UTF-8");
    res.setContentType("text/event-stream");
    res.setHeader("Cache-Control", "no-cache");
    res.setHeader("X-Accel-Buffering", "no");
    res.setHeader("Connection", "close"); // a stream is one response: its end closes it
    manager.clientJoined(query);
    metrics.clientConnected(KIND);
    streams.add(this);
    req.getAsyncContext().addListener(this);
    resizeSendBuffer(0);
    releaseRequestBuffer();
    out = res.getOutputStream();
    synchronized (this) {
      liveAfterId = query.log().lastId();
    }
    out.setWriteListener(this); // from here on, writes only when isReady()
    query.log().subscribe(this);
    return done;
  }

  @Override
  public void wake() {
    pump();
  }

  @Override
  public void onWritePossible() {
    synchronized (this) {
      writesCompleted++;
    }
    pump();
  }

  /** Asks for a comment line soon, so that a dead connection is noticed; checks for slowness. */
  void heartbeat() {
    synchronized (this) {
      heartbeatDue = true;
    }
    pump();
  }

  /** Writes what it can without blocking. */
  private synchronized void pump() {
    if (finished || out == null) {
      return;
    }
    ResultLog log = query.log();
    try {
      while (out.isReady()) {
        blockedSinceMs = 0;
        if (dropped || errorSent) {
          if (lastWords != null) {
            send(lastWords);
            lastWords = null;
          } else if (unflushed) {
            out.flush();
            unflushed = false;
          } else {
            finish();
            return;
          }
          continue;
        }
        if (!finalSent) {
          if (cursor + 1 < log.firstKeptId()) {
            if (log.isReleased()) {
              drop(
                  "The results of this query are no longer kept: it ended and was forgotten"
                      + " (after --keep, or sooner to make room for newer results)",
                  "Read results as they come; submit the query again to see it anew");
            } else {
              drop(
                  "This stream fell behind: results it had not read yet are no longer kept",
                  "Read results as they come; reconnect to read what is kept");
            }
            continue;
          }
          ResultLog.Event e = log.next(cursor);
          if (e != null) {
            send(e.sse());
            cursor = e.id();
            finalSent = e.isFinal();
            if (e.id() > liveAfterId) { // a result sent again (late or reconnecting) is not timed
              metrics.delivered(KIND, e.emitMs(), System.currentTimeMillis());
            }
            continue;
          }
        }
        if (unflushed) {
          out.flush();
          unflushed = false;
        } else if (finalSent) {
          finish();
          return;
        } else if (log.isEnded() && cursor >= log.lastId()) {
          String error = log.error();
          lastWords =
              errorEvent(
                  error != null ? error : "The query ended without a final result",
                  "See the query's state with GET /api/queries/" + query.id());
          errorSent = true;
        } else if (heartbeatDue) {
          send(HEARTBEAT);
          heartbeatDue = false;
        } else {
          return; // nothing to write until woken
        }
      }
      long now = System.currentTimeMillis();
      if (blockedSinceMs == 0) {
        blockedSinceMs = now;
        blockedAtLastId = log.lastId();
      } else if (!dropped
          && (log.lastId() - blockedAtLastId > streams.settings().bufferResults()
              || now - blockedSinceMs > streams.settings().slowClientMs())) {
        drop(
            "This stream fell too far behind and was dropped: the client did not read its"
                + " results as fast as they came",
            "Read results as they come (or use a longer window); reconnect with Last-Event-ID "
                + cursor
                + " to resume");
      }
    } catch (IOException | IllegalStateException e) {
      finish(); // the client went away
    }
  }

  /**
   * Writes {@code bytes} (the caller checked {@code isReady()}): handed to the connection as they
   * are where the container allows it, so that an idle stream holds no output buffer between
   * results (the servlet's buffered write keeps a 32 KiB one for the life of the response: 300 MiB
   * for 10,000 idle streams); buffered, to be flushed, elsewhere.
   */
  private void send(byte[] bytes) throws IOException {
    if (out instanceof HttpOutput direct) {
      direct.write(ByteBuffer.wrap(bytes));
    } else {
      out.write(bytes);
      unflushed = true;
    }
  }

  private static byte[] errorEvent(String message, String resolution) {
    String data =
        Json.write(Json.error(message, resolution, java.util.Map.of()))
            .replace("\n", " ")
            .replace("\r", " ");
    return ("event: error\ndata: " + data + "\n\n").getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Stops sending results and makes room for the error event in the connection's send buffer; the
   * event goes out when the connection takes it (at once when the room is enough).
   */
  private void drop(String message, String resolution) {
    dropped = true;
    query.log().unsubscribe(this);
    metrics.clientDropped(KIND);
    lastWords = errorEvent(message, resolution);
    writesCompletedAtCheck = writesCompleted;
    resizeSendBuffer(LAST_WORDS_ROOM);
    streams.abortLater(this, streams.settings().slowClientMs());
  }

  /**
   * Lets the connection give back the buffer it read the request into (8 KiB), which Jetty keeps
   * for as long as the response lasts: a stream lasts as long as its query, and 10,000 idle streams
   * held 80 MiB of them. The request (a GET, read whole) has nothing left in it; Jetty takes a new
   * buffer if it reads again. Through Jetty's own method, not public: where it is missing, the
   * buffer is kept as before.
   */
  private void releaseRequestBuffer() {
    if (RELEASE_REQUEST_BUFFER == null) {
      return;
    }
    ServletContextRequest r = ServletContextRequest.getServletContextRequest(req);
    if (r != null
        && r.getConnectionMetaData().getConnection() instanceof HttpConnection c
        && c.isRequestBufferEmpty()) {
      try {
        RELEASE_REQUEST_BUFFER.invoke(c);
      } catch (ReflectiveOperationException | RuntimeException e) {
        // kept: it goes back to the pool when the stream ends
      }
    }
  }

  private static final java.lang.reflect.Method RELEASE_REQUEST_BUFFER =
      releaseRequestBufferMethod();

  private static java.lang.reflect.Method releaseRequestBufferMethod() {
    try {
      java.lang.reflect.Method m = HttpConnection.class.getDeclaredMethod("releaseRequestBuffer");
      m.setAccessible(true);
      return m;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  /**
   * Sets the connection's kernel send buffer to {@link #SEND_BUFFER_BYTES} plus {@code extra}
   * (raising it wakes a pending write). Best effort: a connection that is not a TCP socket, or a
   * system that refuses, keeps its buffer.
   */
  private void resizeSendBuffer(int extra) {
    ServletContextRequest r = ServletContextRequest.getServletContextRequest(req);
    if (r != null
        && r.getConnectionMetaData().getConnection().getEndPoint()
            instanceof SocketChannelEndPoint ep) {
      try {
        ep.getChannel().setOption(StandardSocketOptions.SO_SNDBUF, SEND_BUFFER_BYTES + extra);
      } catch (IOException | UnsupportedOperationException e) {
        // keeps the buffer it has
      }
    }
  }

  /**
   * Ends a dropped stream whose connection took nothing since the last check: closes the
   * connection. One that still drains is checked again later.
   */
  void abort() {
    synchronized (this) {
      if (finished) {
        return;
      }
      if (writesCompleted != writesCompletedAtCheck) {
        writesCompletedAtCheck = writesCompleted;
        streams.abortLater(this, streams.settings().slowClientMs());
        return;
      }
    }
    try {
      ServletContextRequest r = ServletContextRequest.getServletContextRequest(req);
      if (r != null) {
        r.getServletChannel().abort(new IOException("result stream dropped"));
      }
    } finally {
      synchronized (this) {
        finish();
      }
    }
  }

  private void finish() {
    if (finished) {
      return;
    }
    finished = true;
    query.log().unsubscribe(this);
    streams.remove(this);
    manager.clientLeft(query);
    metrics.clientDisconnected(KIND);
    done.complete(null);
  }

  @Override
  public void onError(Throwable t) {
    synchronized (this) {
      finish();
    }
  }

  @Override
  public void onComplete(AsyncEvent event) {
    synchronized (this) {
      finish();
    }
  }

  @Override
  public void onTimeout(AsyncEvent event) {
    synchronized (this) {
      finish();
    }
  }

  @Override
  public void onError(AsyncEvent event) {
    synchronized (this) {
      finish();
    }
  }

  @Override
  public void onStartAsync(AsyncEvent event) {}
}
