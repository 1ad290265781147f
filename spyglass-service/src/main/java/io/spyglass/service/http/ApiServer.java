package io.spyglass.service.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.javalin.router.ParsedEndpoint;
import io.javalin.websocket.WsHandlerEntry;
import io.spyglass.core.SpyglassClock;
import io.spyglass.core.syntax.BqlException;
import io.spyglass.service.alerts.Alerts;
import io.spyglass.service.auth.Tokens;
import io.spyglass.service.health.Health;
import io.spyglass.service.metering.Metering;
import io.spyglass.service.metrics.ServiceMetrics;
import io.spyglass.service.query.QueryManager;
import io.spyglass.service.runtime.QueryRuntime;
import io.spyglass.service.runtime.RuntimeStats;
import io.spyglass.service.schema.SchemaSampler;
import io.spyglass.service.store.AuditLog;
import io.spyglass.service.store.History;
import io.spyglass.service.store.SavedQueries;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.eclipse.jetty.server.handler.CrossOriginHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
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
   * @param edge what one connection, address, user or web page may do
   * @param listening the socket bound already, which the server takes over; null to bind {@code
   *     bind}:{@code port} itself
   * @param guards which proxies are believed about a client's address; the memory request bodies
   *     may hold
   * @param tls the certificate and key of HTTPS; null for plain HTTP
   * @param clock the service's clock: its wall clock (epoch milliseconds) for the streams'
   *     slow-client watch, tickets, the throttle of failed logins, the uptime, request heads' age;
   *     its monotonic one for request bodies' deadlines and the stop's grace
   */
  public record Settings(
      String bind,
      int port,
      StreamSettings streams,
      long headerTimeoutMs,
      long startedMs,
      EdgeSettings edge,
      Listening listening,
      EdgeGuards guards,
      Tls tls,
      SpyglassClock clock) {}

  private final Javalin app;
  private final Streams streams;
  private final WebSocketApi ws;
  private final QueriesApi queries;
  private Connections connector;
  private final ScheduledExecutorService guardTimer;
  private SlowHeaderGuard guard;
  private final InFlight inFlight;
  private final SpyglassClock clock;
  private final Tls tls;
  private final CompletableFuture<Void> draining = new CompletableFuture<>();
  private final CompletableFuture<Void> stopped = new CompletableFuture<>();
  private boolean closed;

  public ApiServer(
      Settings settings,
      Tokens tokens,
      QueryRuntime runtime,
      QueryManager manager,
      ServiceMetrics metrics,
      SchemaSampler schema,
      SavedQueries saved,
      History history,
      Metering metering,
      Health health,
      AuditLog audit,
      Alerts alerts) {
    this.tls = settings.tls();
    this.clock = settings.clock();
    this.inFlight = new InFlight(clock);
    SlowClients slowClients = new SlowClients(settings.streams(), clock);
    this.streams = new Streams(slowClients, clock);
    StreamQuota quota = new StreamQuota(settings.edge().maxStreamsPerUser());
    this.ws = new WebSocketApi(manager, metrics, slowClients, quota, clock);
    Tickets tickets = new Tickets(clock);
    TrustedProxies proxies = settings.guards().proxies();
    Auth auth =
        new Auth(
            tokens,
            tickets,
            new FailureThrottle(settings.edge().maxAuthFailuresPerMinute(), clock),
            proxies);
    this.queries = new QueriesApi(manager, metrics, streams, quota, schema, clock);
    SavedApi savedApi = new SavedApi(saved, history, manager.limits().queryLimits());
    MeteringApi meteringApi = new MeteringApi(metering, audit);
    AlertsApi alertsApi = new AlertsApi(alerts, audit);
    BodyMemory bodyMemory =
        new BodyMemory(settings.guards().maxBodyMemory(), settings.guards().maxBodyMemoryPerUser());
    metrics.requestBodies(bodyMemory::used);
    Gate gate =
        new Gate(
            settings.edge(), auth, metrics, meteringApi::admit, bodyMemory, settings.bind(), clock);
    byte[] openApi = openApi();
    this.app =
        Javalin.create(
            cfg -> {
              configure(cfg, settings, metrics, gate);
              WebUi.configure(cfg);
              cfg.routes.before(
                  "/api/*",
                  ctx -> {
                    if (Route.of(ctx).kind() != Route.Kind.HEALTH) {
                      auth.ensure(ctx); // the edge found the caller; this for paths it did not
                    }
                  });
              cfg.routes.wsBeforeUpgrade(
                  "/api/ws",
                  ctx -> {
                    auth.ensure(ctx);
                    quota.check(Auth.user(ctx));
                    TenantScope.check(ctx);
                  });
              // a token bound to tenants: only ingestion and its rows of standing queries (every
              // path: /metrics too)
              cfg.routes.before(TenantScope::check);
              cfg.routes.get(
                  "/api/health", ctx -> health(ctx, health, runtime, manager, settings, metering));
              cfg.routes.get(
                  "/api/openapi.json", ctx -> ctx.contentType(Json.TYPE).result(openApi));
              cfg.routes.get(
                  "/metrics",
                  ctx -> ctx.contentType(ServiceMetrics.CONTENT_TYPE).result(metrics.scrape()));
              cfg.routes.post("/api/tickets", ctx -> ticket(ctx, tickets));
              cfg.routes.post("/api/queries", queries::submit);
              cfg.routes.get("/api/queries", queries::list);
              cfg.routes.get("/api/queries/{id}", queries::get);
              cfg.routes.delete("/api/queries/{id}", queries::delete);
              cfg.routes.get("/api/queries/{id}/results", queries::results);
              cfg.routes.get("/api/queries/{id}/export", queries::export);
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
              cfg.routes.post("/api/alerts", alertsApi::create);
              cfg.routes.get("/api/alerts", alertsApi::list);
              cfg.routes.get("/api/alerts/{name}", alertsApi::get);
              cfg.routes.delete("/api/alerts/{name}", alertsApi::delete);
              cfg.routes.post("/api/alerts/{name}/mute", alertsApi::mute);
              cfg.routes.post("/api/alerts/{name}/unmute", alertsApi::unmute);
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
    if (settings.listening() != null) {
      app.start();
    } else {
      app.start(settings.bind(), settings.port());
    }
    this.guard = new SlowHeaderGuard(app.jettyServer().server(), settings.headerTimeoutMs(), clock);
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
    if (tls != null) {
      // a renewed certificate (e.g. by certbot) is served without a restart
      guardTimer.scheduleWithFixedDelay(tls::reloadIfChanged, 60, 60, TimeUnit.SECONDS);
    }
  }

  @SuppressWarnings("removal") // setDelayDispatchUntilContent: Jetty 12.1 has no other switch
  private void configure(JavalinConfig cfg, Settings settings, ServiceMetrics metrics, Gate gate) {
    cfg.startup.showJavalinBanner = false;
    cfg.startup.showOldJavalinVersionWarning = false;
    // bodies read through Javalin (every route but /api/ingest, which reads its own up to 10 MiB)
    cfg.http.maxRequestSize = MAX_BODY_BYTES;
    cfg.http.prefer405over404 = true;
    cfg.http.asyncTimeout = 0;
    cfg.router.ignoreTrailingSlashes = true;
    // requests never wait on a client or a query holding a thread: a pool as large as Javalin's
    // (250) only grew under a burst of connections, each thread resident until it ended
    int maxThreads = settings.guards().maxThreads();
    QueuedThreadPool pool = new QueuedThreadPool(maxThreads, Math.min(8, maxThreads), 60_000);
    pool.setName("JettyServerThreadPool");
    cfg.jetty.threadPool = pool;
    cfg.jetty.modifyServer(
        server -> {
          server.setErrorHandler(new JsonErrorHandler());
          server.insertHandler(gate); // before Javalin: nothing reaches a route past it
          if (!settings.edge().allowedOrigins().isEmpty()) {
            server.insertHandler(cors(settings.edge())); // preflights answered before the gate
          }
          server.insertHandler(inFlight); // outermost: counts every request until it is answered
        });
    cfg.jetty.addConnector(
        (server, http) -> {
          connector =
              Connections.create(
                  server,
                  http,
                  settings.bind(),
                  settings.port(),
                  settings.edge(),
                  settings.guards().proxies(),
                  settings.listening(),
                  settings.tls());
          return connector;
        });
    cfg.jetty.modifyHttpConfiguration(
        h -> {
          h.setSendServerVersion(false);
          h.setIdleTimeout(60_000);
          // no cache of each connection's header fields: Jetty's (1,024 entries) is a 96 KiB
          // table made for every connection that sends a second request and kept while it stays
          // open, 100 MB for a thousand idle keep-alive clients; the fields common to all
          // requests are still Jetty's shared ones
          h.setHeaderCacheSize(0);
          // the edge sees a request at its head: refusals go out at once, before any body; bodies
          // are then read without a thread (Bodies), so nothing waits on one
          h.setDelayDispatchUntilContent(false);
        });
    cfg.requestLogger.http(
        (ctx, ms) -> {
          metrics.request(ctx.method().name(), ctx.statusCode());
          if (Route.of(ctx).kind() == Route.Kind.INGEST) {
            metrics.ingestRequest(ctx.statusCode());
          }
        });
  }

  /**
   * CORS for the origins of {@code --allowed-origins} only (Jetty's {@link CrossOriginHandler}):
   * their preflights are answered, their requests get the headers that let their pages read the
   * answers. Tokens go in headers, never cookies: no credentials mode.
   */
  private static CrossOriginHandler cors(EdgeSettings edge) {
    CrossOriginHandler h = new CrossOriginHandler();
    h.setAllowedOriginPatterns(
        edge.allowedOrigins().stream()
            .map(o -> Pattern.quote(o))
            .collect(java.util.stream.Collectors.toSet()));
    h.setAllowedMethods(Set.of("GET", "POST", "PUT", "DELETE"));
    h.setAllowedHeaders(
        Set.of("Authorization", "Content-Type", "Content-Encoding", "Last-Event-ID"));
    h.setExposedHeaders(Set.of("Location", "Retry-After", "WWW-Authenticate"));
    h.setAllowCredentials(false);
    h.setDeliverPreflightRequests(false);
    h.setDeliverNonAllowedOriginRequests(true); // the gate refuses what it must, as JSON
    h.setDeliverNonAllowedOriginWebSocketUpgradeRequests(true);
    return h;
  }

  static ApiException tooLarge() {
    return new ApiException(
        413,
        "The request body is larger than " + MAX_BODY_BYTES + " bytes (1 MiB)",
        "Send a smaller body: a query is at most 64 KiB of text");
  }

  private static void ticket(Context ctx, Tickets tickets) {
    Tickets.Issued t = tickets.issue(Auth.user(ctx));
    ObjectNode body = Json.object();
    body.put("ticket", t.ticket());
    body.put("expiresMs", t.expiresMs());
    ctx.header("Cache-Control", "no-store");
    Json.send(ctx, 201, body);
  }

  private static void errors(JavalinConfig cfg) {
    cfg.routes.exception(
        ApiException.class,
        (e, ctx) -> {
          e.headers().forEach(ctx::header);
          if (e.status() == 413) {
            ctx.header("Connection", "close"); // what is left of the body is not read
          }
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
              ctx.header("Connection", "close");
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
          String id = errorId();
          LOG.error("{} {} failed (error {})", ctx.method(), ctx.path(), id, e);
          Json.send(ctx, 500, internalError(id));
        });
  }

  /** A short random id that ties an answer to its line in the server's log. */
  static String errorId() {
    return Long.toString(ThreadLocalRandom.current().nextLong(1L << 40, 1L << 45), 36);
  }

  /**
   * The body of a 500: the error's id and what to do, never its text (which may name classes, files
   * and hosts).
   */
  static ObjectNode internalError(String id) {
    return Json.error(
        "Internal error " + id + ": the server's log has what happened under this id",
        "Retry; if it happens again, report error " + id + " with the server's log",
        Map.of("id", id));
  }

  /**
   * {@code GET /api/health}: 200 with {@code "status": "UP"} while the service can do its job, else
   * 503 with {@code DEGRADED} or {@code DOWN}; {@code problems} says why, a sentence each (naming
   * no path, host or exception). The details (sources, counters, errors) are for callers with a
   * token.
   */
  private static void health(
      Context ctx,
      Health health,
      QueryRuntime runtime,
      QueryManager manager,
      Settings settings,
      Metering metering) {
    Health.Report report = health.check();
    ObjectNode body = Json.object();
    body.put("status", report.status().name());
    ArrayNode problems = body.putArray("problems");
    report.problems().forEach(problems::add);
    int status = report.isUp() ? 200 : 503;
    if (ctx.attribute(Auth.ATTRIBUTE) == null) {
      Json.send(ctx, status, body);
      return;
    }
    RuntimeStats s = runtime.stats();
    body.put("runtime", runtime.describe());
    body.put("uptimeMs", settings.clock().millis() - settings.startedMs());
    body.put("recordsRead", s.recordsRead());
    body.put("recordsMalformed", s.recordsMalformed());
    body.put("recordsPerSecond", Math.round(s.recordsPerSecond()));
    body.put("runningQueries", manager.running());
    if (s.sourceError() != null) {
      body.put("sourceError", s.sourceError());
    }
    MeteringApi.health(metering, body, settings.clock().millis());
    Json.send(ctx, status, body);
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

  /** Connections closed at once because their client address had too many open. */
  public long connectionsRefused() {
    return connector.refused();
  }

  /** Connections closed because their request head came too slowly. */
  public long slowHeadersClosed() {
    return guard.closed();
  }

  /**
   * Stops within {@code graceMs}, once the queries have ended: new requests are refused (503); each
   * WebSocket delivers its subscriptions' last results and {@code end}; each request in flight gets
   * its answer written (an SSE stream its query's final result, a {@code POST /api/query} its
   * results); then every connection closes.
   *
   * @return true if all of it was done within {@code graceMs}
   */
  public boolean stop(long graceMs) throws InterruptedException {
    long deadline = clock.deadlineIn(graceMs);
    inFlight.drain();
    draining.complete(null);
    try {
      boolean delivered = ws.awaitDelivered(clock.msLeft(deadline));
      delivered &= streams.awaitEnded(clock.msLeft(deadline));
      return inFlight.awaitDrained(clock.msLeft(deadline)) && delivered;
    } finally {
      close();
    }
  }

  /**
   * Completes when a {@link #stop} begins to wait for deliveries and answers: for tests that make a
   * stop race them.
   */
  CompletableFuture<Void> draining() {
    return draining;
  }

  /** Completes once the server has stopped and closed every connection. */
  CompletableFuture<Void> stopped() {
    return stopped;
  }

  /** The server's buffer pool: for tests that look at what idle connections hold. */
  org.eclipse.jetty.io.ByteBufferPool bufferPool() {
    return app.jettyServer().server().getByteBufferPool();
  }

  /** What serves each connection open now: for tests that look at what open streams hold. */
  java.util.List<org.eclipse.jetty.io.Connection> connections() {
    return connector.getConnectedEndPoints().stream()
        .map(org.eclipse.jetty.io.EndPoint::getConnection)
        .toList();
  }

  /** HTTPS's certificate and key; null for plain HTTP. */
  Tls tls() {
    return tls;
  }

  QueriesApi queriesApi() {
    return queries;
  }

  WebSocketApi webSockets() {
    return ws;
  }

  /** Stops at once: streams and answers in flight are cut. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    guardTimer.shutdownNow();
    streams.close();
    try {
      app.stop();
    } finally {
      stopped.complete(null);
    }
  }
}
