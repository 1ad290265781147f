package io.spyglass.service.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.javalin.router.ParsedEndpoint;
import io.javalin.websocket.WsHandlerEntry;
import io.spyglass.core.syntax.BqlException;
import io.spyglass.service.auth.Tokens;
import io.spyglass.service.metering.Metering;
import io.spyglass.service.metrics.ServiceMetrics;
import io.spyglass.service.query.QueryManager;
import io.spyglass.service.runtime.QueryRuntime;
import io.spyglass.service.runtime.RuntimeStats;
import io.spyglass.service.schema.SchemaSampler;
import io.spyglass.service.store.History;
import io.spyglass.service.store.SavedQueries;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP server: Javalin on Jetty, every route of the API, JSON errors for every failure, and the
 * guards (tokens, body size, slow request heads). See {@code docs/api.md} and {@code
 * /api/openapi.json}.
 */
public final class ApiServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ApiServer.class);

  /** Largest request body accepted, in bytes. */
  public static final int MAX_BODY_BYTES = 1 << 20;

  /**
   * What the server needs from the service.
   *
   * @param bind address to listen on
   * @param port port, 0 for any free one
   * @param headerTimeoutMs how long a request head may take to arrive before the connection closes
   */
  public record Settings(
      String bind, int port, StreamSettings streams, long headerTimeoutMs, long startedMs) {}

  private final Javalin app;
  private final Streams streams;
  private final WebSocketApi ws;
  private final ScheduledExecutorService guardTimer;
  private SlowHeaderGuard guard;

  public ApiServer(
      Settings settings,
      Tokens tokens,
      QueryRuntime runtime,
      QueryManager manager,
      ServiceMetrics metrics,
      SchemaSampler schema,
      SavedQueries saved,
      History history,
      Metering metering) {
    this.streams = new Streams(settings.streams());
    this.ws = new WebSocketApi(manager, metrics, settings.streams());
    Auth auth = new Auth(tokens);
    QueriesApi queries = new QueriesApi(manager, metrics, streams);
    SavedApi savedApi = new SavedApi(saved, history, manager.limits().queryLimits());
    MeteringApi meteringApi = new MeteringApi(metering);
    byte[] openApi = openApi();
    this.app =
        Javalin.create(
            cfg -> {
              configure(cfg, settings, metrics);
              WebUi.configure(cfg);
              cfg.routes.before(
                  "/api/*",
                  ctx -> {
                    checkBodySize(ctx);
                    if (!ctx.path().equals("/api/health")) {
                      auth.authenticate(ctx);
                    }
                  });
              cfg.routes.wsBeforeUpgrade("/api/ws", auth::authenticate);
              // a token bound to tenants: only ingestion and its rows of standing queries
              cfg.routes.before("/api/*", TenantScope::check);
              cfg.routes.wsBeforeUpgrade("/api/ws", TenantScope::check);
              cfg.routes.get(
                  "/api/health", ctx -> health(ctx, runtime, manager, settings, metering));
              cfg.routes.get(
                  "/api/openapi.json", ctx -> ctx.contentType(Json.TYPE).result(openApi));
              cfg.routes.get(
                  "/metrics",
                  ctx -> ctx.contentType(ServiceMetrics.CONTENT_TYPE).result(metrics.scrape()));
              cfg.routes.post("/api/queries", queries::submit);
              cfg.routes.get("/api/queries", queries::list);
              cfg.routes.get("/api/queries/{id}", queries::get);
              cfg.routes.delete("/api/queries/{id}", queries::delete);
              cfg.routes.get("/api/queries/{id}/results", queries::results);
              cfg.routes.post("/api/query", queries::run);
              cfg.routes.post("/api/validate", queries::validate);
              cfg.routes.get("/api/schema", ctx -> schema(ctx, schema));
              cfg.routes.post("/api/saved", savedApi::create);
              cfg.routes.get("/api/saved", savedApi::list);
              cfg.routes.get("/api/saved/{id}", savedApi::get);
              cfg.routes.put("/api/saved/{id}", savedApi::update);
              cfg.routes.delete("/api/saved/{id}", savedApi::delete);
              cfg.routes.get("/api/history", savedApi::history);
              cfg.routes.post("/api/ingest", meteringApi::ingest);
              cfg.routes.post("/api/standing-queries", meteringApi::createStanding);
              cfg.routes.get("/api/standing-queries", meteringApi::listStanding);
              cfg.routes.delete("/api/standing-queries/{name}", meteringApi::deleteStanding);
              cfg.routes.get("/api/standing-queries/{name}/results", meteringApi::results);
              cfg.routes.ws("/api/ws", ws::configure);
              errors(cfg);
            });
    this.guardTimer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "spyglass-header-guard");
              t.setDaemon(true);
              return t;
            });
    app.start(settings.bind(), settings.port());
    this.guard = new SlowHeaderGuard(app.jettyServer().server(), settings.headerTimeoutMs());
    long every = Math.max(50, Math.min(500, settings.headerTimeoutMs() / 4));
    guardTimer.scheduleWithFixedDelay(
        () -> {
          try {
            guard.check();
          } catch (RuntimeException e) {
            LOG.warn("slow header check failed: {}", e.toString());
          }
        },
        every,
        every,
        TimeUnit.MILLISECONDS);
  }

  private static void configure(JavalinConfig cfg, Settings settings, ServiceMetrics metrics) {
    cfg.startup.showJavalinBanner = false;
    cfg.startup.showOldJavalinVersionWarning = false;
    // bodies read through Javalin (every route but /api/ingest, which reads its own up to 10 MiB)
    cfg.http.maxRequestSize = MAX_BODY_BYTES;
    cfg.http.prefer405over404 = true;
    cfg.http.asyncTimeout = 0;
    cfg.router.ignoreTrailingSlashes = true;
    cfg.jetty.modifyServer(server -> server.setErrorHandler(new JsonErrorHandler()));
    cfg.jetty.modifyHttpConfiguration(
        h -> {
          h.setSendServerVersion(false);
          h.setIdleTimeout(60_000);
        });
    cfg.requestLogger.http(
        (ctx, ms) -> {
          metrics.request(ctx.method().name(), ctx.statusCode());
          if (ctx.path().equals("/api/ingest")) {
            metrics.ingestRequest(ctx.statusCode());
          }
        });
  }

  private static void checkBodySize(Context ctx) {
    long length = ctx.req().getContentLengthLong();
    if (ctx.path().equals("/api/ingest")) {
      if (length > Metering.MAX_BODY_BYTES) {
        throw MeteringApi.tooLarge("as sent");
      }
    } else if (length > MAX_BODY_BYTES) {
      throw tooLarge();
    }
  }

  /** The most of a refused body read and dropped before the answer. */
  static final int DRAIN_BYTES = 64 << 20;

  /**
   * Reads and drops what is left of the body of a request refused as too large (every 413), up to
   * {@link #DRAIN_BYTES}: a server that closes a connection with bytes unread resets it, and the
   * client, still sending, may lose the answer (the 413 with its reason) to the reset.
   */
  private static void drain(Context ctx) {
    byte[] buf = new byte[64 << 10];
    long left = DRAIN_BYTES;
    try {
      InputStream in = ctx.req().getInputStream();
      int n;
      while (left > 0 && (n = in.read(buf, 0, (int) Math.min(buf.length, left))) >= 0) {
        left -= n;
      }
    } catch (IOException | RuntimeException e) {
      // the client went away, or the body was read already: nothing to drop
    }
  }

  private static ApiException tooLarge() {
    return new ApiException(
        413,
        "The request body is larger than " + MAX_BODY_BYTES + " bytes (1 MiB)",
        "Send a smaller body: a query is at most 64 KiB of text");
  }

  private static void errors(JavalinConfig cfg) {
    cfg.routes.exception(
        ApiException.class,
        (e, ctx) -> {
          if (e.status() == 413) {
            drain(ctx);
          }
          e.headers().forEach(ctx::header);
          Json.send(ctx, e.status(), Json.error(e));
        });
    cfg.routes.exception(BqlException.class, QueriesApi::invalid);
    cfg.routes.exception(
        HttpResponseException.class,
        (e, ctx) -> {
          int status = e.getStatus();
          String message;
          String resolution;
          switch (status) {
            case 404 -> {
              message = "No route " + ctx.method() + " " + ctx.path();
              resolution = "See GET /api/openapi.json for the routes";
            }
            case 405 -> {
              String allowed = String.join(", ", e.getDetails().values());
              ctx.header("Allow", allowed);
              message = "Method " + ctx.method() + " is not allowed on " + ctx.path();
              resolution = "Use " + allowed;
            }
            case 413 -> {
              drain(ctx);
              message = tooLarge().getMessage();
              resolution = tooLarge().resolution();
            }
            default -> {
              message = e.getMessage();
              resolution = "See GET /api/openapi.json for what the API accepts";
            }
          }
          Json.send(ctx, status, Json.error(message, resolution, Map.of()));
        });
    cfg.routes.exception(
        Exception.class,
        (e, ctx) -> {
          LOG.error("{} {} failed", ctx.method(), ctx.path(), e);
          Json.send(
              ctx,
              500,
              Json.error(
                  "Internal error: " + e,
                  "Retry; if it happens again, report it with the server's log",
                  Map.of()));
        });
  }

  private static void health(
      Context ctx,
      QueryRuntime runtime,
      QueryManager manager,
      Settings settings,
      Metering metering) {
    RuntimeStats s = runtime.stats();
    ObjectNode body = Json.object();
    body.put("status", "UP");
    body.put("runtime", runtime.describe());
    body.put("uptimeMs", System.currentTimeMillis() - settings.startedMs());
    body.put("recordsRead", s.recordsRead());
    body.put("recordsMalformed", s.recordsMalformed());
    body.put("recordsPerSecond", Math.round(s.recordsPerSecond()));
    body.put("runningQueries", manager.running());
    if (s.sourceError() != null) {
      body.put("sourceError", s.sourceError());
    }
    MeteringApi.health(metering, body);
    Json.send(ctx, 200, body);
  }

  private static void schema(Context ctx, SchemaSampler sampler) {
    SchemaSampler.Snapshot s = sampler.snapshot();
    ObjectNode body = Json.object();
    body.put("records", s.records());
    body.put("sampled", "1 in " + s.everyN());
    body.put("periodMs", s.periodMs());
    ArrayNode fields = body.putArray("fields");
    for (SchemaSampler.Field f : s.fields()) {
      ObjectNode o = fields.addObject();
      o.put("path", f.path());
      ArrayNode types = o.putArray("types");
      f.types().forEach(k -> types.add(k.name()));
      o.put("share", Math.round(f.share() * 10_000) / 10_000.0);
      o.set("examples", Json.MAPPER.valueToTree(f.examples()));
    }
    Json.send(ctx, 200, body);
  }

  private static byte[] openApi() {
    try (InputStream in = ApiServer.class.getResourceAsStream("openapi.json")) {
      if (in == null) {
        throw new IllegalStateException("openapi.json is missing from the jar");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public int port() {
    return app.port();
  }

  /** Every HTTP route served, as {@code METHOD /path}, WebSocket ones as {@code WS /path}. */
  public List<String> routes() {
    List<String> out = new ArrayList<>();
    for (ParsedEndpoint e : app.unsafe.internalRouter.allHttpHandlers()) {
      String method = e.endpoint.method.name();
      if (e.endpoint.method.isHttpMethod()) {
        out.add(method + " " + e.endpoint.path);
      }
    }
    for (WsHandlerEntry e : app.unsafe.internalRouter.allWsHandlers()) {
      if (e.getType().name().equals("WEBSOCKET")) {
        out.add("WS " + e.getPath());
      }
    }
    return out;
  }

  /** Result streams (SSE) open now. */
  public int openStreams() {
    return streams.size() + ws.connections();
  }

  /** Connections closed because their request head came too slowly. */
  public long slowHeadersClosed() {
    return guard.closed();
  }

  /** Waits until every SSE stream has ended (after its final result); true if in time. */
  public boolean awaitStreamsEnded(long timeoutMs) throws InterruptedException {
    return streams.awaitEmpty(timeoutMs);
  }

  @Override
  public void close() {
    guardTimer.shutdownNow();
    streams.close();
    app.stop();
  }
}
