package io.spyglass.service.http;

import io.spyglass.service.metrics.ServiceMetrics;
import io.spyglass.service.query.QueryManager;
import io.spyglass.service.query.ResultLog;
import io.spyglass.service.query.ServiceQuery;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.EventListener;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.io.SocketChannelEndPoint;
import org.eclipse.jetty.server.HttpStream;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.Callback;

/**
 * One client reading a query's results as Server-Sent Events. The response's head goes out through
 * Jetty as any answer's; then the connection is handed over to the stream ({@link
 * HttpStream#UPGRADE_CONNECTION_ATTRIBUTE}, as a WebSocket's is after its upgrade), which writes
 * each event to it itself: an idle stream holds its connection and this object only, none of the
 * request's state (the parsed request and its headers, the servlet's request, response and output,
 * their locks and buffers: about 7 KiB a stream, most of what 10,000 idle streams held).
 *
 * <p>Each result is one {@code event: result} whose {@code id:} is its number in the query's {@link
 * ResultLog}; after the final result (or an {@code event: error} when the query failed) the stream
 * ends and the connection closes (the body ends at the connection's end: {@code Connection: close},
 * no length, as before). Writes never block: the next result is taken only when the connection took
 * the last one, so no thread ever waits on a slow client. A client that closes its end is noticed
 * at once (the connection waits to read its end), a dead one by the heartbeats.
 *
 * <p>A client that stops reading is dropped, with a last {@code event: error}, when more than
 * {@link StreamSettings#bufferResults()} results arrived while its connection was full, when it
 * stayed full for {@link StreamSettings#slowClientMs()} ({@link SlowClients}, as a WebSocket), or
 * when results it had not read are no longer kept. The error event reaches it even though its
 * connection is full: the connection's kernel send buffer is kept small ({@link
 * #SEND_BUFFER_BYTES}) and is raised by {@link #LAST_WORDS_ROOM} at the drop, which makes room for
 * the rest of the result being written and the error after it; the connection then closes and the
 * kernel delivers all of it, the error last, when the client reads again. Where the room is not
 * enough, the error goes out as the client reads, and a client that reads nothing more for {@code
 * slowClientMs} is cut off.
 */
final class SseStream implements Connection, Connection.UpgradeTo, ResultLog.Subscriber, Callback {
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

  /** What a client's bytes after its request are read into, to be dropped (and its end seen). */
  private static final int DISCARD_BYTES = 512;

  private final EndPoint endPoint;
  private final ServiceQuery query;
  private final QueryManager manager;
  private final ServiceMetrics metrics;
  private final ServiceMetrics.Delivery delivery;
  private final Streams streams;
  private final StreamQuota quota;
  private final String user; // whose place among the streams of --max-streams-per-user it holds
  private final long createdMs;

  // whether its connection is full, since when, and how many results had arrived for it then:
  // the slow-client watch of both transports ({@link SlowClients}), kept here (no object of its
  // own for each of ten thousand streams)
  private boolean full;
  private long fullSinceMs;
  private long arrivedThen;

  /** The connector's connection listeners, told of its opening and closing; null when none. */
  private Connection.Listener[] listeners;

  private long cursor;

  /** Results numbered above it were emitted after the stream began: their delivery is live. */
  private long liveAfterId;

  private boolean opened; // the connection is the stream's: it may write
  private boolean writing; // a write is pending: the connection takes nothing more until it ends
  private boolean pumping; // in pump(): a write that completes at once lets the loop go on
  private boolean heartbeatDue;
  private boolean finalSent;
  private boolean errorSent;
  private byte[] lastWords;
  private boolean dropped;
  private boolean finished;
  private long writesCompleted; // times the connection took a pending write: progress
  private long writesCompletedAtCheck = -1;

  /** Its neighbours in the list of open streams; {@link Streams}' to change, under its lock. */
  SseStream openPrev;

  SseStream openNext;

  private SseStream(
      EndPoint endPoint,
      ServiceQuery query,
      long afterId,
      QueryManager manager,
      ServiceMetrics metrics,
      Streams streams,
      StreamQuota quota,
      String user) {
    this.endPoint = endPoint;
    this.query = query;
    this.cursor = afterId;
    this.manager = manager;
    this.metrics = metrics;
    this.delivery = metrics.delivery(KIND);
    this.streams = streams;
    this.quota = quota;
    this.user = user;
    this.createdMs = streams.slowClients().now();
  }

  /**
   * Answers {@code req} with the head of an event stream and has the connection handed over to a
   * stream of {@code query}'s results after {@code afterId} once the answer completes (the route
   * returns at once). The stream holds one of {@code user}'s places in {@code quota}, taken by the
   * caller, until it ends.
   *
   * @throws IOException when the head could not be written (the client went away)
   */
  static void open(
      ServiceQuery query,
      long afterId,
      QueryManager manager,
      ServiceMetrics metrics,
      Streams streams,
      StreamQuota quota,
      String user,
      HttpServletRequest req,
      HttpServletResponse res)
      throws IOException {
    ServletContextRequest r = ServletContextRequest.getServletContextRequest(req);
    if (r == null) {
      quota.release(user);
      throw new IllegalStateException("not a request of Jetty's servlet layer");
    }
    Request core = Request.unWrap(r);
    SseStream s =
        new SseStream(
            r.getConnectionMetaData().getConnection().getEndPoint(),
            query,
            afterId,
            manager,
            metrics,
            streams,
            quota,
            user);
    r.getConnectionMetaData().getConnector().getEventListeners().forEach(s::addEventListener);
    s.begin();
    // the connection is the stream's once this answer completes (Jetty hands it over when its
    // stream succeeds); if it was not by then, or the answer failed, the stream ends
    core.setAttribute(HttpStream.UPGRADE_CONNECTION_ATTRIBUTE, s);
    core.addHttpStreamWrapper(
        stream ->
            new HttpStream.Wrapper(stream) {
              @Override
              public void succeeded() {
                super.succeeded();
                s.endUnlessOpened();
              }

              @Override
              public void failed(Throwable x) {
                super.failed(x);
                s.end();
              }
            });
    res.setStatus(200);
    res.setCharacterEncoding("UTF-8");
    res.setContentType("text/event-stream");
    res.setHeader("Cache-Control", "no-cache");
    res.setHeader("X-Accel-Buffering", "no");
    res.setHeader("Connection", "close"); // a stream is one response: its end closes it
    try {
      // the head goes out now, without a length: the body is what the stream writes after it
      res.flushBuffer();
    } catch (IOException | RuntimeException e) {
      s.end();
      throw e;
    }
  }

  /** Counts the stream as its query's client from its first answer on. */
  private void begin() {
    manager.clientJoined(query);
    metrics.clientConnected(KIND);
    streams.add(this);
    synchronized (this) {
      liveAfterId = query.log().lastId();
    }
  }

  /** The connection is the stream's now: it writes what there is and waits for the client's end. */
  @Override
  public void onOpen() {
    synchronized (this) {
      if (finished) {
        endPoint.close();
        return;
      }
      opened = true;
    }
    if (listeners != null) {
      for (Connection.Listener l : listeners) {
        l.onOpened(this);
      }
    }
    // no idle timeout (a timer task per connection): a stream is never idle, its heartbeats see
    // to that, and a client that stops taking them is dropped by the slow-client rules; a peer
    // that vanished without a word is given up by TCP once a heartbeat goes unacknowledged
    endPoint.setIdleTimeout(0);
    resizeSendBuffer(0);
    query.log().subscribe(this);
    endPoint.fillInterested(this);
    pump();
  }

  @Override
  public void addEventListener(EventListener listener) {
    if (listener instanceof Connection.Listener l) {
      Connection.Listener[] now = listeners == null ? new Connection.Listener[0] : listeners;
      Connection.Listener[] more = java.util.Arrays.copyOf(now, now.length + 1);
      more[now.length] = l;
      listeners = more;
    }
  }

  @Override
  public void removeEventListener(EventListener listener) {
    if (listeners != null) {
      Connection.Listener[] fewer =
          java.util.Arrays.stream(listeners)
              .filter(l -> l != listener)
              .toArray(Connection.Listener[]::new);
      listeners = fewer.length == 0 ? null : fewer;
    }
  }

  @Override
  public EndPoint getEndPoint() {
    return endPoint;
  }

  @Override
  public void close() {
    endPoint.close();
  }

  @Override
  public long getMessagesIn() {
    return -1;
  }

  @Override
  public long getMessagesOut() {
    return -1;
  }

  @Override
  public long getBytesIn() {
    return -1;
  }

  @Override
  public long getBytesOut() {
    return -1;
  }

  @Override
  public long getCreatedTimeStamp() {
    return createdMs;
  }

  /** Bytes the client sent after its request: not read (a stream reads nothing). */
  @Override
  public void onUpgradeTo(ByteBuffer buffer) {
    if (buffer != null) {
      buffer.clear().limit(0);
    }
  }

  /**
   * The connection can be read (this is the callback of its read interest): the client sent
   * something, which is dropped, or closed its end, which ends the stream.
   */
  @Override
  public void succeeded() {
    ByteBuffer b = ByteBuffer.allocate(DISCARD_BYTES);
    try {
      while (true) {
        b.position(0).limit(0); // empty: fill appends after the limit
        int n = endPoint.fill(b);
        if (n < 0) {
          endPoint.close();
          return; // its end: onClose ends the stream
        }
        if (n == 0) {
          endPoint.fillInterested(this);
          return;
        }
      }
    } catch (IOException | RuntimeException e) {
      endPoint.close(e);
    }
  }

  /** Waiting to read failed (the connection closed): the stream ends. */
  @Override
  public void failed(Throwable x) {
    endPoint.close(x);
    end();
  }

  /** Not called: a stream's connection has no idle timeout (see {@link #onOpen}). */
  @Override
  public boolean onIdleExpired(TimeoutException timeout) {
    endPoint.close(timeout);
    return false;
  }

  @Override
  public void onClose(Throwable cause) {
    end();
    if (listeners != null) {
      for (Connection.Listener l : listeners) {
        l.onClosed(this);
      }
    }
  }

  @Override
  public void wake() {
    pump();
  }

  /** The connection took the last write. */
  private void written() {
    synchronized (this) {
      writing = false;
      writesCompleted++;
      if (pumping) {
        return; // taken at once: pump's loop goes on
      }
    }
    pump();
  }

  /** The last write failed: the client went away. */
  private void writeFailed(Throwable x) {
    endPoint.close(x);
    end();
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
    if (finished || !opened || pumping) {
      return;
    }
    pumping = true;
    try {
      pumpNow();
    } finally {
      pumping = false;
    }
  }

  /**
   * Its connection is full now, {@code arrived} results having arrived so far: true when the stream
   * must be dropped ({@link SlowClients#tooSlow}). The first call since it was last free starts the
   * watch and is false.
   */
  private boolean full(long arrived) {
    SlowClients policy = streams.slowClients();
    if (!full) {
      full = true;
      fullSinceMs = policy.now();
      arrivedThen = arrived;
      return false;
    }
    return policy.tooSlow(fullSinceMs, arrivedThen, arrived);
  }

  private void pumpNow() {
    ResultLog log = query.log();
    try {
      while (!writing && !finished) {
        full = false; // the connection took what was in flight
        if (dropped || errorSent) {
          if (lastWords != null) {
            byte[] w = lastWords;
            lastWords = null;
            send(w);
          } else {
            closeAfterLast();
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
            cursor = e.id();
            finalSent = e.isFinal();
            if (e.id() > liveAfterId) { // a result sent again (late or reconnecting) is not timed
              delivery.delivered(e.emitMs(), streams.slowClients().now());
            }
            send(e.sse());
            continue;
          }
        }
        if (finalSent) {
          closeAfterLast();
          return;
        } else if (log.isEnded() && cursor >= log.lastId()) {
          String error = log.error();
          lastWords =
              errorEvent(
                  error != null ? error : "The query ended without a final result",
                  "See the query's state with GET /api/queries/" + query.id());
          errorSent = true;
        } else if (heartbeatDue) {
          heartbeatDue = false;
          send(HEARTBEAT);
        } else {
          return; // nothing to write until woken
        }
      }
      if (finished) {
        return;
      }
      // its connection is full: results that arrive meanwhile are counted by their numbers
      if (!dropped && full(log.lastId())) {
        drop(
            "This stream fell too far behind and was dropped: the client did not read its"
                + " results as fast as they came",
            "Read results as they come (or use a longer window); reconnect with Last-Event-ID "
                + cursor
                + " to resume");
      }
    } catch (RuntimeException e) {
      endPoint.close(e); // the client went away
      end();
    }
  }

  /**
   * Hands {@code bytes} to the connection, as they are (no copy, no buffer held between results);
   * the connection calls {@link #written} once it took them all, at once or later.
   */
  private void send(byte[] bytes) {
    writing = true;
    endPoint.write(Callback.from(this::written, this::writeFailed), ByteBuffer.wrap(bytes));
  }

  /** Ends the stream after its last byte: output shut (the body's end), then the connection. */
  private void closeAfterLast() {
    endPoint.shutdownOutput();
    endPoint.close();
    end();
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
   * Sets the connection's kernel send buffer to {@link #SEND_BUFFER_BYTES} plus {@code extra}
   * (raising it wakes a pending write). Best effort: a connection that is not a TCP socket (over
   * TLS, the TLS layer's), or a system that refuses, keeps its buffer.
   */
  private void resizeSendBuffer(int extra) {
    if (endPoint instanceof SocketChannelEndPoint ep) {
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
    endPoint.close(new IOException("result stream dropped"));
    end();
  }

  /**
   * Ends a stream whose connection was never handed over to it (its answer failed, or Jetty kept
   * the connection): it is no longer its query's client.
   */
  void endUnlessOpened() {
    synchronized (this) {
      if (opened) {
        return;
      }
    }
    end();
  }

  /** Its end, once: no longer a client of its query; its place is free for another stream. */
  private void end() {
    synchronized (this) {
      if (finished) {
        return;
      }
      finished = true;
    }
    query.log().unsubscribe(this);
    streams.remove(this);
    manager.clientLeft(query);
    metrics.clientDisconnected(KIND);
    quota.release(user);
  }
}
