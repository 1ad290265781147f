package io.spyglass.service;

import io.spyglass.core.SpyglassClock;
import io.spyglass.engine.EngineConfig;
import io.spyglass.service.alerts.AlertStore;
import io.spyglass.service.alerts.Alerts;
import io.spyglass.service.auth.Tokens;
import io.spyglass.service.health.Health;
import io.spyglass.service.http.ApiServer;
import io.spyglass.service.http.Listening;
import io.spyglass.service.http.Tls;
import io.spyglass.service.metering.Metering;
import io.spyglass.service.metrics.ServiceMetrics;
import io.spyglass.service.query.QueryManager;
import io.spyglass.service.runtime.EmbeddedRuntime;
import io.spyglass.service.runtime.QueryRuntime;
import io.spyglass.service.schema.SchemaSampler;
import io.spyglass.service.store.AuditLog;
import io.spyglass.service.store.DataFolderLock;
import io.spyglass.service.store.Database;
import io.spyglass.service.store.History;
import io.spyglass.service.store.SavedQueries;
import io.spyglass.sinks.Sinks;
import io.spyglass.sources.Source;
import io.spyglass.sources.UnionSource;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code spyglass serve}: a {@link QueryRuntime} behind an HTTP API that many people and programs
 * use at once. Owns the runtime, the database, the queries and the server; {@link #shutdown} ends
 * every query with its final result, lets the streams deliver it, then stops.
 *
 * <pre>{@code
 * QueryRuntime runtime = EmbeddedRuntime.start(Sources.open("gen"), EngineConfig.defaults());
 * try (SpyglassService s = SpyglassService.start(ServiceConfig.defaults(), runtime)) {
 *   System.out.println(s.url());
 * }
 * }</pre>
 */
public final class SpyglassService implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SpyglassService.class);

  private final ServiceConfig config;
  private final Tokens tokens;
  private final QueryRuntime runtime;
  private final Database db;
  private final History history;
  private final QueryManager queries;
  private final ServiceMetrics metrics;
  private final SchemaSampler schema;
  private final ScheduledExecutorService sweeper;
  private final ApiServer server;
  private final Metering metering;

  /** Alerts on the standing queries; null without standing queries. */
  private final Alerts alerts;

  private final DataFolderLock lock;
  private final AuditLog audit;
  private final Sinks sinks;
  private final Health health = new Health();
  private final SpyglassClock clock;

  /** When the sweeper last swept, on the monotonic clock. */
  private volatile long lastSweepNanos;

  private volatile boolean closed;

  /** A sweep older than this tells health that the sweeper stopped. */
  private static final long SWEEP_STALE_MS = 10_000;

  private SpyglassService(
      ServiceConfig config,
      Tokens tokens,
      QueryRuntime runtime,
      Database db,
      Metering metering,
      Listening listening,
      DataFolderLock lock,
      AuditLog audit,
      Sinks sinks,
      AlertStore alertStore,
      SpyglassClock serviceClock) {
    LongSupplier clock = serviceClock;
    this.clock = serviceClock;
    this.lastSweepNanos = serviceClock.nanos();
    this.lock = lock;
    this.audit = audit;
    this.sinks = sinks;
    this.config = config;
    this.tokens = tokens;
    this.runtime = runtime;
    this.db = db;
    this.metering = metering;
    this.history = new History(db, config.usage().maxHistoryPerUser(), health);
    this.queries =
        new QueryManager(
            runtime,
            new QueryManager.Limits(
                config.maxQueries(),
                config.maxQueriesPerUser(),
                config.graceMs(),
                config.keepMs(),
                config.keepResults(),
                config.keepBytes(),
                config.queryLimits(),
                config.results(),
                config.maxForeverMs()),
            serviceClock,
            sinks);
    this.metrics = new ServiceMetrics(runtime, queries, clock);
    metrics.sinks(sinks);
    if (metering != null && metering.standing() != null) {
      metrics.metering(metering);
    }
    queries.observe(metrics);
    queries.observe(history);
    queries.observe(audit);
    this.schema = new SchemaSampler(runtime, config.sampleEveryN(), config.schemaPeriodMs(), clock);
    this.sweeper =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "spyglass-sweeper");
              t.setDaemon(true);
              return t;
            });
    Alerts started = null;
    try {
      if (alertStore != null) {
        started =
            Alerts.start(
                alertStore,
                metering.store(),
                metering.standing(),
                sinks,
                config.queryLimits(),
                config.alerts(),
                clock);
      }
      this.alerts = started;
      if (started != null) {
        metrics.alerts(started);
      }
      SavedQueries saved =
          new SavedQueries(
              db,
              clock,
              new SavedQueries.Quota(
                  config.usage().maxSavedPerUser(),
                  config.usage().maxSavedBytesPerUser(),
                  config.usage().minFreeDiskBytes()));
      health.probe(runtime::problems);
      health.probe(this::problems);
      health.probe(() -> storageProblems(saved, metering));
      this.server =
          new ApiServer(
              new ApiServer.Settings(
                  config.bind(),
                  config.port(),
                  config.streams(),
                  config.headerTimeoutMs(),
                  clock.getAsLong(),
                  config.edge(),
                  listening,
                  config.guards(),
                  config.tls() == null ? null : Tls.load(config.tls(), clock),
                  serviceClock),
              tokens,
              runtime,
              queries,
              metrics,
              schema,
              saved,
              history,
              metering,
              health,
              audit,
              alerts);
      sweeper.scheduleWithFixedDelay(this::sweep, 250, 250, TimeUnit.MILLISECONDS);
    } catch (RuntimeException | Error e) {
      // the server did not start: the threads started for it stop (the caller closes the rest)
      sweeper.shutdownNow();
      schema.close();
      history.close();
      if (started != null) {
        started.close();
      } else if (alertStore != null) {
        alertStore.close();
      }
      throw e;
    }
  }

  /** What the service itself sees wrong: a sweeper that stopped, an ingest log not written. */
  private List<Health.Problem> problems() {
    List<Health.Problem> out = new ArrayList<>();
    if (!closed && clock.msSince(lastSweepNanos) > SWEEP_STALE_MS) {
      out.add(
          Health.Problem.down(
              "The thread that ends abandoned queries and forgets old results (spyglass-sweeper)"
                  + " has stopped; restart the service"));
    }
    if (metering != null && metering.ingestor().writeError() != null) {
      out.add(
          Health.Problem.degraded(
              "The ingest log cannot be written: POST /api/ingest answers 503 and nothing is"
                  + " acknowledged until it can (the log says why)"));
    }
    return out;
  }

  /** What keeps the databases from doing their job: damage found while they were used. */
  private static List<Health.Problem> storageProblems(SavedQueries saved, Metering metering) {
    List<Health.Problem> out = new ArrayList<>();
    if (saved.storageProblem() != null) {
      out.add(Health.Problem.degraded(saved.storageProblem()));
    }
    if (metering != null && metering.store().problem() != null) {
      out.add(Health.Problem.degraded(metering.store().problem()));
    }
    return out;
  }

  /**
   * Starts the service on {@code runtime}, which it owns from then on (and closes).
   *
   * @throws IllegalArgumentException when the settings are refused: e.g. a non-loopback address
   *     without tokens or {@code insecure}, or a malformed tokens file; the message says what to do
   * @throws IOException when the tokens file or the database cannot be read, or another service
   *     uses the data folder (it is locked for the service's life)
   */
  public static SpyglassService start(ServiceConfig config, QueryRuntime runtime)
      throws IOException {
    return start(config, runtime, null);
  }

  /**
   * Starts the service on {@code runtime} with ingestion and standing queries: {@code metering}'s
   * source feeds the runtime's engine, whose standing queries it has restored. The service owns
   * both from then on.
   */
  public static SpyglassService start(ServiceConfig config, QueryRuntime runtime, Metering metering)
      throws IOException {
    return start(config, null, runtime, metering);
  }

  /**
   * Binds the service's port, before anything else starts: give the answer to {@link
   * #start(ServiceConfig, Listening, QueryRuntime, Metering)} or {@link
   * #startMetering(ServiceConfig, MeteringStart)}, so that a port in use stops {@code serve} before
   * its engine reads a record or restores a standing query.
   *
   * @throws IllegalArgumentException when the settings do not allow the address (beyond loopback
   *     without tokens or {@code insecure}), or the TLS certificate or key does not load
   * @throws IOException when the port is in use; the message says what to do
   */
  public static Listening bind(ServiceConfig config) throws IOException {
    if (config.tokensFile() == null && !config.insecure() && !isLoopback(config.bind())) {
      throw new IllegalArgumentException(notLoopback(config));
    }
    if (config.tls() != null) {
      Tls.load(config.tls()); // a certificate or key that does not load stops the start first
    }
    return Listening.bind(config.bind(), config.port());
  }

  private static String notLoopback(ServiceConfig config) {
    return "without --tokens the service only listens on loopback (127.0.0.1); to serve "
        + config.bind()
        + " give --tokens FILE, or --insecure to let anyone who reaches it in";
  }

  /**
   * As {@link #start(ServiceConfig, QueryRuntime, Metering)}, on the socket {@code listening} bound
   * by {@link #bind} (null to bind the configured port now). The service owns it too.
   */
  public static SpyglassService start(
      ServiceConfig config, Listening listening, QueryRuntime runtime, Metering metering)
      throws IOException {
    return start(config, listening, runtime, metering, SpyglassClock.system());
  }

  /**
   * As {@link #start(ServiceConfig, Listening, QueryRuntime, Metering)}, taking its time from
   * {@code clock} (a test's, to control it) rather than the machine's clocks.
   */
  public static SpyglassService start(
      ServiceConfig config,
      Listening listening,
      QueryRuntime runtime,
      Metering metering,
      SpyglassClock clock)
      throws IOException {
    DataFolderLock lock;
    try {
      lock = DataFolderLock.acquire(config.dataDir(), clock);
    } catch (IOException | RuntimeException e) {
      runtime.close();
      closeQuietly(metering);
      closeQuietly(listening);
      throw e;
    }
    return start(config, listening, runtime, metering, lock, null, null, clock);
  }

  /**
   * Starts the service with the data folder's lock taken (the service releases it), with {@code
   * tokens} read from the tokens file already (null: read it now), and the sinks its standing
   * queries deliver to already (null: made now). The service owns them all from then on.
   */
  private static SpyglassService start(
      ServiceConfig config,
      Listening listening,
      QueryRuntime runtime,
      Metering metering,
      DataFolderLock lock,
      Tokens loaded,
      Sinks made,
      SpyglassClock clock)
      throws IOException {
    Sinks sinks = made != null ? made : sinks(config);
    try {
      Tokens tokens = loaded != null ? loaded : tokens(config);
      if (!tokens.required() && !config.insecure() && !isLoopback(config.bind())) {
        throw new IllegalArgumentException(notLoopback(config));
      }
      Database db = Database.open(config.dataDir(), clock);
      AuditLog audit = null;
      AlertStore alertStore = null;
      try {
        LongSupplier wall = clock;
        audit = AuditLog.open(config.auditLogPath(), wall);
        if (metering != null && metering.standing() != null) {
          // in the standing queries' database: their final windows are what alerts read
          alertStore = AlertStore.open(config.dataDir(), metering.settings().databaseUrl(), wall);
        }
        SpyglassService s =
            new SpyglassService(
                config,
                tokens,
                runtime,
                db,
                metering,
                listening,
                lock,
                audit,
                sinks,
                alertStore,
                clock);
        audit.service("service-started", java.util.Map.of("url", s.url()));
        return s;
      } catch (IOException | RuntimeException e) {
        if (audit != null) {
          audit.close();
        }
        if (alertStore != null) {
          alertStore.close(); // closing twice is harmless
        }
        db.close();
        throw e;
      }
    } catch (IOException | RuntimeException e) {
      runtime.close();
      closeQuietly(metering);
      closeQuietly(listening);
      lock.close();
      sinks.close(0);
      throw e;
    }
  }

  /** The sinks of {@code config}: their threads start with the first document. */
  private static Sinks sinks(ServiceConfig config) {
    return new Sinks(config.sinks().delivery(), config.sinks().policy());
  }

  private static void closeQuietly(Listening listening) {
    if (listening != null) {
      try {
        listening.close();
      } catch (IOException e) {
        LOG.warn("closing the listening socket: {}", e.toString());
      }
    }
  }

  /**
   * Starts the service with ingestion ({@code POST /api/ingest}) and standing queries, durable
   * under the data folder, as {@code start} says (see {@link MeteringStart}): by default the engine
   * reads the ingested documents, beside {@code start.other()} when not null. Standing queries are
   * restored before the engine reads its first document. A port bound by {@link #bind} first
   * ({@code start.listening()}) stops {@code serve} before anything else starts when it is taken.
   *
   * @throws IOException when the ingest log or the database cannot be read, another service uses
   *     the data folder, or the Flink job does not start
   */
  public static SpyglassService startMetering(ServiceConfig config, MeteringStart start)
      throws IOException, InterruptedException {
    Listening listening = start.listening();
    Source other = start.other();
    EngineConfig engineConfig = start.engine();
    Metering.Settings settings = start.settings();
    io.spyglass.service.metering.JobStanding.Starter job = start.job();
    SpyglassClock clock = start.clock();
    Metering metering;
    DataFolderLock lock = null;
    Tokens tokens;
    try {
      // before any file of the folder is opened
      lock = DataFolderLock.acquire(config.dataDir(), clock);
      // read once (a pipe, e.g. --tokens <(...), reads once): a bad file stops the start before
      // anything is opened, and the service uses what was checked
      tokens = tokens(config);
      metering = Metering.open(config.dataDir(), settings, config.recovery(), clock);
    } catch (IOException | RuntimeException e) {
      if (lock != null) {
        lock.close();
      }
      if (other != null) {
        other.close();
      }
      if (start.runtime() != null) {
        start.runtime().close(); // the service owns it from the call, as start's
      }
      closeQuietly(listening);
      throw e;
    }
    EmbeddedRuntime embedded = null;
    QueryRuntime runtime = start.runtime();
    try {
      if (runtime == null) {
        Source ingested = metering.source();
        Source source = other == null ? ingested : new UnionSource(other, ingested);
        embedded = EmbeddedRuntime.startPaused(source, engineConfig.withClock(clock));
        runtime = embedded;
      } else if (other != null) {
        other.close(); // the given runtime reads its own input
      }
      if (start.forward() != null) {
        metering.forwardTo(start.forward());
      }
    } catch (IOException | RuntimeException e) {
      if (start.runtime() != null) {
        start.runtime().close();
      }
      closeQuietly(metering);
      closeQuietly(listening);
      lock.close();
      throw e;
    }
    QueryRuntime served = runtime;
    if (job != null) {
      try {
        served =
            io.spyglass.service.metering.JobStanding.start(
                runtime, metering, config.dataDir(), job);
      } catch (Exception e) {
        runtime.close();
        closeQuietly(metering);
        closeQuietly(listening);
        lock.close();
        throw new IOException("the Flink job does not start: " + e.getMessage(), e);
      }
    }
    Sinks sinks = sinks(config); // before the standing queries: they deliver to theirs
    try {
      metering.start(served, config.queryLimits(), config.usage().standing(), sinks);
      if (embedded != null) {
        embedded.resume();
      }
    } catch (RuntimeException | InterruptedException e) {
      served.close();
      closeQuietly(metering);
      closeQuietly(listening);
      lock.close();
      sinks.close(0);
      throw e;
    }
    return start(config, listening, served, metering, lock, tokens, sinks, clock);
  }

  /** The tokens of the configured file, or none without one. */
  private static Tokens tokens(ServiceConfig config) throws IOException {
    return config.tokensFile() == null ? Tokens.none() : Tokens.load(config.tokensFile());
  }

  private static void closeQuietly(Metering metering) {
    if (metering != null) {
      try {
        metering.close();
      } catch (IOException e) {
        LOG.warn("closing ingestion: {}", e.toString());
      }
    }
  }

  /** Alerts on the standing queries; null when the service has no standing queries. */
  public Alerts alerts() {
    return alerts;
  }

  /** Ingestion and standing queries; null when the service has none. */
  public Metering metering() {
    return metering;
  }

  static boolean isLoopback(String bind) {
    try {
      return InetAddress.getByName(bind).isLoopbackAddress();
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("cannot resolve the address to bind: " + bind, e);
    }
  }

  private void sweep() {
    try {
      queries.sweep();
      lastSweepNanos = clock.nanos();
    } catch (Throwable e) { // a scheduled task that throws is never run again
      LOG.warn("sweep failed", e);
    }
  }

  public ServiceConfig config() {
    return config;
  }

  public int port() {
    return server.port();
  }

  /** The URL people open: {@code http://HOST:PORT/}, {@code https://} with TLS. */
  public String url() {
    String host = config.bind();
    try {
      InetAddress a = InetAddress.getByName(host);
      if (a.isAnyLocalAddress()) {
        host = InetAddress.getLocalHost().getHostName();
      } else if (host.contains(":")) {
        host = "[" + host + "]";
      }
    } catch (UnknownHostException e) {
      // keep the address as given
    }
    return (config.tls() != null ? "https://" : "http://") + host + ":" + port() + "/";
  }

  public boolean requiresTokens() {
    return tokens.required();
  }

  public QueryRuntime runtime() {
    return runtime;
  }

  public QueryManager queries() {
    return queries;
  }

  public ServiceMetrics metrics() {
    return metrics;
  }

  public ApiServer server() {
    return server;
  }

  /**
   * Whether the service can do its job, as {@code GET /api/health} tells: parts of the service (and
   * of those who embed it) {@link Health#report} what they cannot do into it.
   */
  public Health health() {
    return health;
  }

  /**
   * Stops gracefully: refuses new queries, ends every running one (each emits its final result),
   * waits for the streams to deliver it and for every answer in flight to be written (a {@code POST
   * /api/query}'s), then closes everything.
   *
   * @return true if every query ended, and every stream and answer was delivered, within the
   *     timeout
   */
  public boolean shutdown(long timeoutMs) {
    long deadline = clock.deadlineIn(timeoutMs);
    boolean clean = false;
    try {
      if (metering != null && metering.standing() != null) {
        // a last checkpoint before every query ends: the standing queries go on after a restart
        metering.standing().close();
      }
      if (alerts != null) {
        alerts.close(); // what it did not deliver is delivered after the restart
      }
      queries.stopAll();
      clean = queries.awaitAllEnded(clock.msLeft(deadline));
      clean &= server.stop(clock.msLeft(deadline));
      // the final results to the sinks too: what they still hold after a few seconds is dropped,
      // and logged
      clean &= sinks.close(SINK_DRAIN_MS) == 0;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      close();
    }
    return clean;
  }

  /** How long a stop lets the sinks deliver what they hold. */
  static final long SINK_DRAIN_MS = 5_000;

  /** Where queries' results go besides their streams. */
  public Sinks sinks() {
    return sinks;
  }

  /** Stops at once: streams are cut and running queries end without a final result. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    server.close();
    sweeper.shutdownNow();
    schema.close();
    if (metering != null && metering.standing() != null) {
      metering.standing().close(); // a last checkpoint, while the engine still runs
    }
    if (alerts != null) {
      alerts.close();
    }
    queries.markInterrupted(); // what still runs ends now, without a final result
    runtime.close();
    sinks.close(0); // after a shutdown, closed already; else what they hold is dropped, logged
    closeQuietly(metering);
    history.close();
    audit.service("service-stopped", java.util.Map.of());
    audit.close();
    db.close();
    lock.close(); // last: nothing of the folder is written after
  }
}
