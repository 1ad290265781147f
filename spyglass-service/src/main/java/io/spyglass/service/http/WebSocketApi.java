package io.spyglass.service.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.websocket.WsConfig;
import io.javalin.websocket.WsContext;
import io.spyglass.core.SpyglassClock;
import io.spyglass.core.query.QueryStats;
import io.spyglass.core.syntax.BqlException;
import io.spyglass.service.auth.User;
import io.spyglass.service.metrics.ServiceMetrics;
import io.spyglass.service.query.AdmissionException;
import io.spyglass.service.query.QueryManager;
import io.spyglass.service.query.ResultLog;
import io.spyglass.service.query.ServiceQuery;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.eclipse.jetty.websocket.api.Callback;

/**
 * {@code /api/ws}: one socket carries many queries. Client messages: {@code {"type": "submit",
 * "query": BQL, "detached"?: bool, "progress"?: bool, "sinks"?: [...]}}, {@code {"type":
 * "subscribe", "id": ..., "after"?: N, "progress"?: bool}}, {@code {"type": "unsubscribe", "id":
 * ...}}, {@code {"type": "kill", "id": ...}}. Server messages: {@code accepted}, {@code result}
 * ({@code {"type": "result", "id": ..., "seq": N, "result": {...}}}), {@code end} after a query's
 * last result, {@code killed}, {@code unsubscribed}, {@code error}; {@code progress} every second
 * (and once more before {@code end}) for a query followed with {@code "progress": true}; {@code
 * gap} when a subscription starts after, or falls behind, results that are no longer kept (it goes
 * on from the oldest kept).
 *
 * <p>A web page follows all its queries over one socket: a browser allows six HTTP/1.1 connections
 * per host, and a stream per query (plus a poll of its progress) used them up with a few tabs.
 *
 * <p>Sends never block: each frame is queued in Jetty with a callback, at most {@link
 * StreamSettings#bufferResults()} frames in flight per socket. A socket whose client does not read
 * is closed after an error message, by the rules an SSE stream is dropped by ({@link SlowClients}).
 */
final class WebSocketApi {
  static final String KIND = "websocket";

  /** How often a followed query's progress is sent. */
  static final long PROGRESS_EVERY_MS = 1_000;

  /**
   * The largest integer a JavaScript number holds exactly: longer durations are "until stopped".
   */
  static final long MAX_EXACT_MS = (1L << 53) - 1;

  /** One timer for the progress of every socket of every server in this JVM. */
  private static final ScheduledExecutorService TIMER =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "spyglass-ws-progress");
            t.setDaemon(true);
            return t;
          });

  private final QueryManager manager;
  private final ServiceMetrics metrics;
  private final ServiceMetrics.Delivery delivery;
  private final StreamSettings settings;
  private final SlowClients slowClients;

  /** The service's clock: a wait for the sockets to deliver is timed on its monotonic count. */
  private final SpyglassClock clock;

  private final StreamQuota quota;
  private final Map<String, Connection> connections = new ConcurrentHashMap<>();
  private ScheduledFuture<?> progressTask;

  /** Runs before a subscription's {@code end} is sent: for tests that make it race a stop. */
  volatile Runnable beforeEnd = () -> {};

  /**
   * Runs as a socket subscribes to a query, before it reads the query's log, with what closes the
   * socket: for tests that make a close race a subscribe.
   */
  volatile Consumer<Runnable> beforeSubscribe = close -> {};

  WebSocketApi(
      QueryManager manager,
      ServiceMetrics metrics,
      SlowClients slowClients,
      StreamQuota quota,
      SpyglassClock clock) {
    this.clock = clock;
    this.manager = manager;
    this.metrics = metrics;
    this.delivery = metrics.delivery(KIND);
    this.settings = slowClients.settings();
    this.slowClients = slowClients;
    this.quota = quota;
  }

  void configure(WsConfig ws) {
    ws.onConnect(
        ctx -> {
          User user = ctx.attribute(Auth.ATTRIBUTE);
          StreamQuota.Permit permit;
          try {
            permit = quota.acquire(user); // checked before the upgrade; this closes the race
          } catch (ApiException e) {
            ctx.session.sendText(Json.write(error(null, e)), Callback.NOOP);
            ctx.closeSession(1013, "too many result streams");
            return;
          }
          connections.put(ctx.sessionId(), new Connection(ctx, user, permit));
          metrics.clientConnected(KIND);
          startProgress();
          ctx.enableAutomaticPings(15, TimeUnit.SECONDS);
        });
    ws.onMessage(
        ctx -> {
          Connection c = connections.get(ctx.sessionId());
          if (c != null) {
            c.onMessage(ctx.message());
          }
        });
    ws.onClose(ctx -> closed(ctx.sessionId()));
    ws.onError(ctx -> closed(ctx.sessionId()));
  }

  private void closed(String sessionId) {
    Connection c = connections.remove(sessionId);
    if (c != null) {
      c.close();
      c.permit.close();
      metrics.clientDisconnected(KIND);
    }
  }

  int connections() {
    return connections.size();
  }

  /**
   * Waits until every socket has delivered what its subscriptions had (each ended query's last
   * results and {@code end}) and its client took every frame; true if they did within the timeout.
   * Call it once the queries have ended.
   */
  boolean awaitDelivered(long timeoutMs) throws InterruptedException {
    long deadline = clock.deadlineIn(timeoutMs);
    while (!connections.values().stream().allMatch(Connection::delivered)) {
      if (clock.nanos() - deadline >= 0) {
        return false;
      }
      Thread.sleep(10);
    }
    return true;
  }

  /** Sends progress every second while there are sockets; the task stops when the last closes. */
  private synchronized void startProgress() {
    if (progressTask == null) {
      progressTask =
          TIMER.scheduleWithFixedDelay(
              this::sendProgress, PROGRESS_EVERY_MS, PROGRESS_EVERY_MS, TimeUnit.MILLISECONDS);
    }
  }

  private void sendProgress() {
    try {
      if (connections.isEmpty()) {
        synchronized (this) {
          if (connections.isEmpty() && progressTask != null) {
            progressTask.cancel(false);
            progressTask = null;
          }
        }
        return;
      }
      Map<String, QueryStats> live = manager.progress();
      long now = slowClients.now();
      for (Connection c : connections.values()) {
        c.sendProgress(live, now);
      }
    } catch (RuntimeException e) {
      // the next tick tries again; a timer task that throws would never run again
    }
  }

  /**
   * A query's progress as {@code GET /api/queries/{id}} has it; {@code durationMs} is null for a
   * query that runs until stopped.
   */
  static ObjectNode progress(ServiceQuery q, Map<String, QueryStats> live, long now) {
    ObjectNode m = message("progress", q.id());
    m.put("state", q.state());
    ObjectNode p = m.putObject("progress");
    p.put("elapsedMs", q.elapsedMs(now));
    long d = q.durationMs();
    if (d <= 0 || d > MAX_EXACT_MS) {
      p.putNull("durationMs");
    } else {
      p.put("durationMs", d);
    }
    QueryStats qp = QueryManager.progress(q, live);
    p.put("recordsSeen", qp.seen());
    p.put("recordsMatched", qp.matched());
    p.put("resultsEmitted", q.log().lastId());
    return m;
  }

  /** One socket: its user, the queries it follows and the frames in flight. */
  private final class Connection {
    private final WsContext ctx;
    private final User user;
    private final StreamQuota.Permit permit;
    private final Map<String, Subscription> subs = new LinkedHashMap<>();
    private int inFlight;

    /**
     * Whether its connection is full, and whether it is too slow: the policy of both transports.
     */
    private final SlowClients.Watch watch = slowClients.watch();

    /** Times a subscription was woken (a result arrived, or its query ended): only grows. */
    private long wakes;

    private boolean closed;
    private Thread pumping;

    Connection(WsContext ctx, User user, StreamQuota.Permit permit) {
      this.ctx = ctx;
      this.user = user;
      this.permit = permit;
    }

    void onMessage(String text) {
      ObjectNode msg;
      try {
        msg = Json.parseObject(text);
      } catch (ApiException e) {
        send(error(null, e));
        return;
      }
      String type = msg.path("type").asText("");
      String id = msg.path("id").asText(null);
      try {
        switch (type) {
          case "submit" -> submit(msg);
          case "subscribe" ->
              subscribe(find(id), after(msg), msg.path("progress").asBoolean(false));
          case "unsubscribe" -> {
            if (id == null) {
              throw ApiException.badRequest("The message needs an id", "Give the query's id");
            }
            unsubscribe(id);
            send(message("unsubscribed", id));
          }
          case "kill" -> {
            manager.kill(find(id), user);
            send(message("killed", id));
          }
          default ->
              throw ApiException.badRequest(
                  "Unknown message type '" + type + "'",
                  "Send {\"type\": \"submit\", \"query\": BQL}, {\"type\": \"subscribe\", \"id\":"
                      + " ID}, {\"type\": \"unsubscribe\", \"id\": ID} or {\"type\": \"kill\","
                      + " \"id\": ID}");
        }
      } catch (ApiException e) {
        send(error(id, e));
      }
    }

    private void submit(ObjectNode msg) {
      JsonNode q = msg.get("query");
      if (q == null || !q.isTextual() || q.asText().isBlank()) {
        throw ApiException.badRequest(
            "A submit message needs a query", "Send {\"type\": \"submit\", \"query\": BQL}");
      }
      ServiceQuery query;
      java.util.List<io.spyglass.sinks.SinkSpec> sinks =
          QueriesApi.sinks(msg.get("sinks"), manager.sinks());
      try {
        query = manager.submit(user, q.asText(), msg.path("detached").asBoolean(false), sinks);
      } catch (BqlException e) {
        ObjectNode err = Json.errors(e);
        err.put("type", "error");
        err.put("status", 422);
        err.put("query", q.asText());
        send(err);
        return;
      } catch (AdmissionException e) {
        throw QueriesApi.tooMany(e);
      } catch (IllegalStateException e) {
        throw QueriesApi.unavailable(e);
      }
      ObjectNode accepted = message("accepted", query.id());
      accepted.put("query", query.text());
      send(accepted);
      subscribe(query, 0, msg.path("progress").asBoolean(false));
    }

    private static long after(ObjectNode msg) {
      JsonNode a = msg.get("after");
      if (a == null || a.isNull()) {
        return 0;
      }
      if (!a.canConvertToLong() || a.asLong() < 0) {
        throw ApiException.badRequest(
            "\"after\" must be the seq of the last result received, 0 or more",
            "Send {\"type\": \"subscribe\", \"id\": ID, \"after\": N}, or no \"after\" to start"
                + " over");
      }
      return a.asLong();
    }

    private ServiceQuery find(String id) {
      if (id == null) {
        throw ApiException.badRequest("The message needs an id", "Give the query's id");
      }
      return manager.find(user, id).orElseThrow(() -> QueriesApi.noSuchQuery(id));
    }

    /**
     * Follows a query from after result {@code after}. Under this socket's lock from start to end,
     * so that a close cannot come between: the socket becomes a client of the query and a reader of
     * its log together, and a close undoes both (the lock is taken before the log's, as the pump
     * takes them).
     */
    private synchronized void subscribe(ServiceQuery q, long after, boolean progress) {
      if (closed) {
        return;
      }
      Subscription old = subs.get(q.id());
      if (old != null) {
        old.progress |= progress;
        return;
      }
      Subscription s = new Subscription(q, after, progress, q.log().lastId());
      skipGap(s); // a late or returning subscriber reads from the oldest result kept
      subs.put(q.id(), s);
      manager.clientJoined(q);
      beforeSubscribe.accept(this::close);
      q.log().subscribe(s);
    }

    /**
     * Moves a subscription past results its query no longer keeps (trimmed to make room, or the
     * query forgotten), telling its client which with a {@code gap} message.
     */
    private void skipGap(Subscription s) {
      ResultLog log = s.query.log();
      long firstKept = log.firstKeptId();
      if (s.cursor + 1 < firstKept && s.cursor < log.lastId()) {
        gap(s, firstKept - 1);
      }
    }

    /** Tells the client that results after the cursor up to {@code to} are lost; moves past. */
    private void gap(Subscription s, long to) {
      ObjectNode gap = message("gap", s.query.id());
      gap.put("from", s.cursor + 1);
      gap.put("to", to);
      send(gap);
      s.cursor = to;
    }

    /** Stops following a query: the socket is no longer one of its clients. */
    private synchronized void unsubscribe(String id) {
      Subscription s = subs.get(id);
      if (s != null) {
        unsubscribe(s);
      }
    }

    /** The progress of the queries followed with progress, while they run. */
    synchronized void sendProgress(Map<String, QueryStats> live, long now) {
      if (closed || !slowClients.hasRoom(inFlight)) {
        return; // a client that does not read gets no more to read
      }
      for (Subscription s : subs.values()) {
        if (s.progress && s.query.isRunning()) {
          send(progress(s.query, live, now));
        }
      }
    }

    /** Sends what the subscriptions have, within the frames allowed in flight. */
    synchronized void pump() {
      if (closed || pumping != null) {
        return; // a send completed at once, inside this thread's pump: it goes on by itself
      }
      pumping = Thread.currentThread();
      try {
        pumpNow();
      } finally {
        pumping = null;
      }
    }

    private void pumpNow() {
      long now = slowClients.now();
      for (Subscription s : new ArrayList<>(subs.values())) {
        ResultLog log = s.query.log();
        skipGap(s);
        while (slowClients.hasRoom(inFlight)) {
          List<ResultLog.Event> next = log.after(s.cursor, 1);
          if (next.isEmpty()) {
            break;
          }
          ResultLog.Event e = next.get(0);
          if (e.id() > s.cursor + 1) {
            gap(s, e.id() - 1); // trimmed since the look above
          }
          s.cursor = e.id();
          sendResult(s.query.id(), e);
          if (e.id() > s.liveAfterId) { // a result sent again (late or resubscribing) is not timed
            delivery.delivered(e.emitMs(), now);
          }
        }
        if (log.isEnded() && s.cursor >= log.lastId()) {
          beforeEnd.run();
          if (s.progress) {
            send(progress(s.query, Map.of(), now));
          }
          ObjectNode end = message("end", s.query.id());
          if (log.error() != null) {
            end.putObject("error")
                .put("message", log.error())
                .put("resolution", "See GET /api/queries/" + s.query.id());
          }
          send(end);
          unsubscribe(s);
        }
      }
      if (slowClients.hasRoom(inFlight)) {
        watch.free();
      } else if (watch.full(wakes)) { // results that arrive meanwhile are counted by the wakes
        drop("This socket fell too far behind and was closed: its client did not read as fast");
      }
    }

    private void unsubscribe(Subscription s) {
      if (subs.remove(s.query.id()) != null) {
        s.query.log().unsubscribe(s);
        manager.clientLeft(s.query);
      }
    }

    private void sendResult(String id, ResultLog.Event e) {
      String frame =
          "{\"type\":\"result\",\"id\":"
              + Json.write(id)
              + ",\"seq\":"
              + e.id()
              + ",\"result\":"
              + e.json()
              + "}";
      sendFrame(frame);
    }

    private void send(ObjectNode msg) {
      sendFrame(Json.write(msg));
    }

    private synchronized void sendFrame(String frame) {
      if (closed) {
        return;
      }
      inFlight++;
      ctx.session.sendText(frame, Callback.from(this::sent, t -> close()));
    }

    private void sent() {
      boolean more;
      synchronized (this) {
        inFlight--;
        more = inFlight == settings.bufferResults() / 2 || inFlight == 0;
      }
      if (more) {
        pump();
      }
    }

    private void drop(String message) {
      metrics.clientDropped(KIND);
      ObjectNode err =
          error(
              null,
              new ApiException(
                  429, message, "Read results as they come, or use a longer window; reconnect"));
      String frame = Json.write(err);
      ctx.session.sendText(frame, Callback.from(() -> {}, t -> {}));
      close();
      ctx.session.close(1008, "too far behind", Callback.NOOP);
    }

    /** Whether it follows no query and has no frame in flight (or is closed). */
    synchronized boolean delivered() {
      return closed || (subs.isEmpty() && inFlight == 0);
    }

    synchronized void close() {
      if (closed) {
        return;
      }
      closed = true;
      for (Subscription s : new ArrayList<>(subs.values())) {
        unsubscribe(s);
      }
    }

    /** One query this socket follows. */
    private final class Subscription implements ResultLog.Subscriber {
      final ServiceQuery query;
      long cursor;
      boolean progress;

      /** Results numbered above it were emitted after the subscription: delivered live. */
      final long liveAfterId;

      Subscription(ServiceQuery query, long after, boolean progress, long liveAfterId) {
        this.query = query;
        this.cursor = after;
        this.progress = progress;
        this.liveAfterId = liveAfterId;
      }

      @Override
      public void wake() {
        synchronized (Connection.this) {
          wakes++;
        }
        pump();
      }
    }
  }

  private static ObjectNode message(String type, String id) {
    ObjectNode m = Json.object();
    m.put("type", type);
    if (id != null) {
      m.put("id", id);
    }
    return m;
  }

  private static ObjectNode error(String id, ApiException e) {
    ObjectNode m = Json.error(e);
    m.put("type", "error");
    m.put("status", e.status());
    if (id != null) {
      m.put("id", id);
    }
    return m;
  }
}
