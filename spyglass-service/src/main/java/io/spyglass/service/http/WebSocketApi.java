package io.spyglass.service.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.websocket.WsConfig;
import io.javalin.websocket.WsContext;
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
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.websocket.api.Callback;

/**
 * {@code /api/ws}: one socket carries many queries. Client messages: {@code {"type": "submit",
 * "query": BQL, "detached"?: bool}}, {@code {"type": "subscribe", "id": ..., "after"?: N}}, {@code
 * {"type": "kill", "id": ...}}. Server messages: {@code accepted}, {@code result} ({@code {"type":
 * "result", "id": ..., "seq": N, "result": {...}}}), {@code end} after a query's last result, and
 * {@code error}.
 *
 * <p>Sends never block: each frame is queued in Jetty with a callback, at most {@link
 * StreamSettings#bufferResults()} frames in flight per socket. A socket whose client does not read
 * is closed after an error message, as an SSE stream is dropped.
 */
final class WebSocketApi {
  static final String KIND = "websocket";

  private final QueryManager manager;
  private final ServiceMetrics metrics;
  private final StreamSettings settings;
  private final Map<String, Connection> connections = new ConcurrentHashMap<>();

  WebSocketApi(QueryManager manager, ServiceMetrics metrics, StreamSettings settings) {
    this.manager = manager;
    this.metrics = metrics;
    this.settings = settings;
  }

  void configure(WsConfig ws) {
    ws.onConnect(
        ctx -> {
          User user = ctx.attribute(Auth.ATTRIBUTE);
          connections.put(ctx.sessionId(), new Connection(ctx, user));
          metrics.clientConnected(KIND);
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
      metrics.clientDisconnected(KIND);
    }
  }

  int connections() {
    return connections.size();
  }

  /** One socket: its user, the queries it follows and the frames in flight. */
  private final class Connection {
    private final WsContext ctx;
    private final User user;
    private final Map<String, Subscription> subs = new LinkedHashMap<>();
    private int inFlight;
    private long blockedSinceMs;
    private long wokenWhileBlocked;
    private boolean closed;
    private Thread pumping;

    Connection(WsContext ctx, User user) {
      this.ctx = ctx;
      this.user = user;
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
          case "subscribe" -> subscribe(find(id), msg.path("after").asLong(0));
          case "kill" -> {
            manager.kill(find(id));
            send(message("killed", id));
          }
          default ->
              throw ApiException.badRequest(
                  "Unknown message type '" + type + "'",
                  "Send {\"type\": \"submit\", \"query\": BQL}, {\"type\": \"subscribe\", \"id\":"
                      + " ID} or {\"type\": \"kill\", \"id\": ID}");
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
      try {
        query = manager.submit(user, q.asText(), msg.path("detached").asBoolean(false));
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
      subscribe(query, 0);
    }

    private ServiceQuery find(String id) {
      if (id == null) {
        throw ApiException.badRequest("The message needs an id", "Give the query's id");
      }
      return manager.find(user, id).orElseThrow(() -> QueriesApi.noSuchQuery(id));
    }

    private void subscribe(ServiceQuery q, long after) {
      Subscription s;
      synchronized (this) {
        if (closed || subs.containsKey(q.id())) {
          return;
        }
        s = new Subscription(q, after, q.log().lastId());
        subs.put(q.id(), s);
      }
      manager.clientJoined(q);
      q.log().subscribe(s);
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
      long now = System.currentTimeMillis();
      for (Subscription s : new ArrayList<>(subs.values())) {
        ResultLog log = s.query.log();
        if (s.cursor + 1 < log.firstKeptId()) {
          drop("This socket fell behind: results it had not read yet are no longer kept");
          return;
        }
        while (inFlight < settings.bufferResults()) {
          List<ResultLog.Event> next = log.after(s.cursor, 1);
          if (next.isEmpty()) {
            break;
          }
          ResultLog.Event e = next.get(0);
          s.cursor = e.id();
          sendResult(s.query.id(), e);
          if (e.id() > s.liveAfterId) { // a result sent again (late or resubscribing) is not timed
            metrics.delivered(KIND, e.emitMs(), now);
          }
        }
        if (log.isEnded() && s.cursor >= log.lastId()) {
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
      if (inFlight < settings.bufferResults()) {
        blockedSinceMs = 0;
        wokenWhileBlocked = 0;
      } else if (blockedSinceMs == 0) {
        blockedSinceMs = now;
      } else if (wokenWhileBlocked > settings.bufferResults()
          || now - blockedSinceMs > settings.slowClientMs()) {
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

      /** Results numbered above it were emitted after the subscription: delivered live. */
      final long liveAfterId;

      Subscription(ServiceQuery query, long after, long liveAfterId) {
        this.query = query;
        this.cursor = after;
        this.liveAfterId = liveAfterId;
      }

      @Override
      public void wake() {
        synchronized (Connection.this) {
          if (blockedSinceMs != 0) {
            wokenWhileBlocked++;
          }
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
