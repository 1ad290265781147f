package io.spyglass.service.metering;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.Query;
import io.spyglass.core.query.QueryCombiner;
import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import io.spyglass.core.run.CheckedQuery;
import io.spyglass.engine.Engine;
import io.spyglass.engine.ingest.Ingestor;
import io.spyglass.service.auth.User;
import io.spyglass.sinks.SinkSpec;
import io.spyglass.sinks.SinkStats;
import io.spyglass.sinks.Sinks;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Standing queries: queries without end that survive restarts. One thread owns them: it takes their
 * results as they come, and every checkpoint period it takes an engine checkpoint and writes, in
 * one transaction, each query's state, the final windows and late counts the states cover, and the
 * ingest log position they cover. A restart restores the states and replays the log from that
 * position: every document is counted once.
 *
 * <p>Thread-safe: changes go through the owning thread; reads see a consistent copy.
 */
public final class StandingQueries implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StandingQueries.class);

  /**
   * A standing query as listed.
   *
   * @param withoutTime documents it read without a readable event time, in no window (as of the
   *     last checkpoint)
   * @param error why it stopped; null while it runs
   * @param sinks its sinks and their counters; empty when it has none
   */
  public record Info(
      String name,
      String query,
      String owner,
      long createdMs,
      long withoutTime,
      String error,
      List<SinkStats> sinks) {
    /** A standing query without sinks. */
    public Info(
        String name, String query, String owner, long createdMs, long withoutTime, String error) {
      this(name, query, owner, createdMs, withoutTime, error, List.of());
    }
  }

  /**
   * What standing queries may do.
   *
   * @param tenantField the column of a standing query's rows that names their tenant: a token bound
   *     to tenants reads only the rows whose column holds one of its tenants
   * @param maxPerUser most standing queries one user defines; admins are not counted
   * @param adminOnly whether only admins define standing queries
   * @param maxGroups most exact groups per window of a standing query (at most the engine's), fixed
   *     for each when it is defined: its saved states hold groups of that size
   * @param maxStateBytes most bytes of a standing query's saved state, checked at each checkpoint:
   *     a query over it stops, for good, with an error saying so
   */
  public record Limits(
      String tenantField, int maxPerUser, boolean adminOnly, int maxGroups, long maxStateBytes) {}

  /** Refused: the name is taken, unknown, or the query is not valid; the message says which. */
  public static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int status;
    private final String resolution;
    private final String limit;

    Refused(int status, String message) {
      this(status, message, null, null);
    }

    Refused(int status, String message, String resolution) {
      this(status, message, resolution, null);
    }

    /**
     * @param resolution what to do; null for the status's usual advice
     * @param limit the option whose limit was reached; null for none
     */
    Refused(int status, String message, String resolution, String limit) {
      super(message);
      this.status = status;
      this.resolution = resolution;
      this.limit = limit;
    }

    /**
     * A failure of the service (5xx) caused by {@code cause}: {@code message} says what could not
     * be done, never the cause's text (which may name classes, files and hosts); the answer gives
     * an error id under which the cause is logged.
     */
    Refused(int status, String message, Throwable cause) {
      super(message, cause);
      this.status = status;
      this.resolution = null;
      this.limit = null;
    }

    public int status() {
      return status;
    }

    /** What to do about it; null for the status's usual advice. */
    public String resolution() {
      return resolution;
    }

    /** The option whose limit was reached, e.g. {@code max-standing-queries-per-user}; or null. */
    public String limit() {
      return limit;
    }
  }

  private final Engine engine;
  private final StandingStore store;
  private final Checkpointer checkpointer;

  /** The limits of other queries. */
  private final QueryLimits limits;

  /** The exact groups a window of a standing query defined now keeps. */
  private final int maxGroups;

  private final Limits standing;
  private final LongSupplier clock;

  /** Where standing queries deliver their results besides their windows; null: nowhere. */
  private final Sinks sinks;

  private final Map<String, StandingQuery> queries = new LinkedHashMap<>();

  /** A copy of {@link #queries} for readers off the owning thread (metrics, health). */
  private volatile List<StandingQuery> published = List.of();

  private final ScheduledExecutorService owner;
  private final AtomicBoolean drainQueued = new AtomicBoolean();
  private volatile long checkpoints;
  private volatile long checkpointFailures;
  private volatile long lastCheckpointMs;
  private volatile boolean closed;

  /** What runs after each checkpoint written: see {@link #afterCheckpoint}. */
  private final List<Runnable> afterCheckpoint = new java.util.concurrent.CopyOnWriteArrayList<>();

  private StandingQueries(
      Engine engine,
      StandingStore store,
      Ingestor ingestor,
      QueryLimits queryLimits,
      Limits standing,
      LongSupplier clock,
      Sinks sinks) {
    this.engine = engine;
    this.store = store;
    this.sinks = sinks;
    this.limits = queryLimits;
    // standing queries keep fewer exact groups than other queries: they run for ever
    this.maxGroups = Math.min(queryLimits.maxExactGroups(), standing.maxGroups());
    this.standing = standing;
    this.checkpointer = new Checkpointer(engine, store, ingestor);
    this.clock = clock;
    this.lastCheckpointMs = clock.getAsLong();
    this.owner =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "spyglass-standing");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Restores every standing query of {@code store} on {@code engine}, which must not be reading yet
   * (the caller resumes it after), and checkpoints every {@code checkpointEveryMs}. A query stored
   * as failed stays so, with its windows.
   */
  public static StandingQueries restore(
      Engine engine,
      StandingStore store,
      Ingestor ingestor,
      QueryLimits queryLimits,
      Limits standing,
      long checkpointEveryMs,
      LongSupplier clock)
      throws InterruptedException {
    return restore(engine, store, ingestor, queryLimits, standing, checkpointEveryMs, clock, null);
  }

  /**
   * As {@link #restore(Engine, StandingStore, Ingestor, QueryLimits, Limits, long, LongSupplier)},
   * each standing query delivering its results to its sinks through {@code sinks} (null: standing
   * queries have no sinks, and their stored sinks are not delivered to).
   */
  public static StandingQueries restore(
      Engine engine,
      StandingStore store,
      Ingestor ingestor,
      QueryLimits queryLimits,
      Limits standing,
      long checkpointEveryMs,
      LongSupplier clock,
      Sinks sinks)
      throws InterruptedException {
    StandingQueries s =
        new StandingQueries(engine, store, ingestor, queryLimits, standing, clock, sinks);
    for (StandingStore.Stored st : store.list()) {
      StandingQuery q = new StandingQuery(st, s.limits, standing.tenantField());
      q.sinks = s.sinksOf(q);
      if (st.error() != null) {
        q.error = st.error();
        s.openWindowsOf(q, st.state());
      } else {
        try {
          q.handle =
              engine.submit(
                  q.id(), q.checked(), new Engine.SubmitOptions(st.createdMs(), st.state(), true));
          s.listen(q);
        } catch (RuntimeException e) {
          q.error = "cannot restart: " + e.getMessage();
          LOG.error("standing query {} cannot restart: {}", st.name(), e.getMessage());
        }
      }
      s.queries.put(st.name(), q);
    }
    s.publish();
    for (StandingQuery q : s.queries.values()) {
      if (q.handle != null) {
        q.handle.awaitRunning(30, TimeUnit.SECONDS);
      }
    }
    s.owner.scheduleWithFixedDelay(
        s::checkpointQuietly, checkpointEveryMs, checkpointEveryMs, TimeUnit.MILLISECONDS);
    return s;
  }

  private void publish() {
    published = List.copyOf(queries.values());
  }

  /**
   * The deliveries of a standing query's stored sinks; null without any. A sink the service no
   * longer allows (its operator changed the lists) gives every document up, saying why.
   */
  private io.spyglass.sinks.QuerySinks sinksOf(StandingQuery q) {
    List<SinkSpec> specs;
    try {
      specs = SinkSpec.listFromJson(q.stored.sinks());
    } catch (IllegalArgumentException e) {
      LOG.error("standing query {}: its sinks cannot be read: {}", q.name(), e.getMessage());
      return null;
    }
    if (specs.isEmpty()) {
      return null;
    }
    if (sinks == null) {
      LOG.warn(
          "standing query {}: this service delivers to no sink, its sinks get nothing", q.name());
      return null;
    }
    return sinks.forQuery(q.id(), specs);
  }

  private void listen(StandingQuery q) {
    q.handle.onUpdate(
        () -> {
          if (!closed && drainQueued.compareAndSet(false, true)) {
            try {
              owner.execute(this::drainAll);
            } catch (RejectedExecutionException e) {
              // stopping: nothing more is taken
            }
          }
        });
  }

  /** What standing queries may do here. */
  public Limits limits() {
    return standing;
  }

  /** Where standing queries deliver their results besides their windows; null: nowhere. */
  public Sinks sinks() {
    return sinks;
  }

  /** Checkpoints taken since the start. */
  public long checkpoints() {
    return checkpoints;
  }

  /** Checkpoints that failed since the start (each is tried again a period later). */
  public long checkpointFailures() {
    return checkpointFailures;
  }

  /** When the last checkpoint was written (epoch ms); the start before the first. */
  public long lastCheckpointMs() {
    return lastCheckpointMs;
  }

  /** How the standing queries are doing, as of now, without waiting for their thread. */
  public record Status(String name, boolean running, long withoutTime, long stateBytes) {}

  /** Each standing query's status, oldest first; cheap, for metrics and health. */
  public List<Status> status() {
    List<Status> out = new ArrayList<>();
    for (StandingQuery q : published) {
      boolean running = q.error == null && q.handle != null && !q.handle.isDone();
      out.add(new Status(q.name(), running, q.withoutTime, q.stateBytes));
    }
    return out;
  }

  /**
   * A standing query by name, as listed (whoever asks), without waiting for their thread; empty
   * when there is none.
   */
  public Optional<Info> find(String name) {
    for (StandingQuery q : published) {
      if (q.name().equals(name)) {
        return Optional.of(info(q));
      }
    }
    return Optional.empty();
  }

  /**
   * Runs {@code r} after each checkpoint written, on the standing queries' thread: it must return
   * at once (hand the work to a thread of its own). The final windows the checkpoint covers are in
   * the store by then.
   */
  public void afterCheckpoint(Runnable r) {
    afterCheckpoint.add(r);
  }

  /** A standing query's name: 1 to 100 letters, digits, '.', '_' or '-'. */
  private static final String NAME = "[A-Za-z0-9][A-Za-z0-9._-]{0,99}";

  /**
   * Starts a standing query at the next cut of the stream and writes it with its state before
   * returning.
   *
   * @param by who defines it, its owner
   * @throws Refused 409 when the name is taken, 400 when it is not a valid name or the query does
   *     not run forever, 403 when {@code by} may not define one (or another one)
   * @throws io.spyglass.core.syntax.BqlException when the query is not valid
   */
  public Info create(String name, String query, User by) {
    return create(name, query, List.of(), by);
  }

  /**
   * As {@link #create(String, String, User)}, its every result also delivered to {@code sinkSpecs}
   * (checked already against the service's sinks), which are stored with it.
   *
   * @throws Refused 422 when it names sinks and the service delivers to none
   */
  public Info create(String name, String query, List<SinkSpec> sinkSpecs, User by) {
    if (!sinkSpecs.isEmpty() && sinks == null) {
      throw new Refused(
          422,
          "This service delivers results to no sink",
          "Leave \"sinks\" out, or ask the operator");
    }
    if (by.boundToTenants()) {
      throw new Refused(
          403,
          "A token bound to tenants ("
              + by.tenants().stream().sorted().toList()
              + ") reads standing queries; it does not define them: a query it defined could"
              + " show other tenants' documents",
          "Ask an admin or a user whose token is bound to no tenant to define it");
    }
    if (standing.adminOnly() && !by.admin()) {
      throw new Refused(
          403,
          "Only admins define standing queries on this service (--standing-queries-admin-only)",
          "Ask an admin to define it");
    }
    if (!name.matches(NAME)) {
      throw new Refused(
          400,
          "A standing query's name is 1 to 100 letters, digits, '.', '_' or '-', starting with a"
              + " letter or digit: '"
              + name
              + "' is not",
          "Name it e.g. usage-by-org");
    }
    // checked once, here: the engine runs this plan
    CheckedQuery checked = CheckedQuery.check(query, limits.withMaxExactGroups(maxGroups));
    if (!checked.plan().runsForever()) {
      throw new Refused(
          400,
          "A standing query runs until it is deleted: its stream is STREAM(FOREVER), e.g. SELECT"
              + " org, SUM(quantity) AS total FROM STREAM(FOREVER) GROUP BY org WINDOWING"
              + " TUMBLING(1h, EVENT_TIME(time), LATENESS 10m)",
          "Write FROM STREAM(FOREVER): a standing query has no end of its own");
    }
    return call(
        () -> {
          if (queries.containsKey(name)) {
            throw new Refused(409, "A standing query named " + name + " exists");
          }
          long mine = queries.values().stream().filter(q -> q.owner().equals(by.name())).count();
          if (!by.admin() && mine >= standing.maxPerUser()) {
            throw new Refused(
                403,
                by.name()
                    + " has "
                    + mine
                    + " standing queries, the most one user defines here ("
                    + standing.maxPerUser()
                    + ", --max-standing-queries-per-user)",
                "Delete one of yours first (DELETE /api/standing-queries/NAME), or ask an admin",
                "max-standing-queries-per-user");
          }
          StandingQuery q =
              new StandingQuery(
                  new StandingStore.Stored(
                      name,
                      query,
                      by.name(),
                      clock.getAsLong(),
                      null,
                      null,
                      maxGroups,
                      sinkSpecs.isEmpty() ? null : SinkSpec.toJson(sinkSpecs)),
                  limits,
                  standing.tenantField(),
                  checked);
          q.sinks = sinksOf(q);
          try {
            checkpoint(q, null);
          } catch (Checkpointer.NotSaved e) {
            checkpointFailures++;
            if (q.sinks != null) {
              q.sinks.release();
            }
            throw new Refused(
                503,
                "Standing query "
                    + name
                    + " could not start: the checkpoint it starts at could not be taken",
                e);
          }
          return info(q);
        });
  }

  /**
   * Ends a standing query and forgets it and its windows.
   *
   * @param by who asks: its owner or an admin
   * @throws Refused 404 when there is none of that name, 403 when {@code by} may not end it
   */
  public void delete(String name, User by) {
    call(
        () -> {
          StandingQuery q = queries.get(name);
          if (q == null) {
            throw new Refused(404, "No standing query named " + name);
          }
          if (!by.canSee(q.stored.owner())) {
            throw new Refused(
                403,
                "Standing query "
                    + name
                    + " belongs to "
                    + q.stored.owner()
                    + "; only its owner or an admin ends it");
          }
          if (q.handle != null) {
            q.handle.kill();
          }
          if (q.sinks != null) {
            q.sinks.release(); // what they hold is still delivered, within their bounds
          }
          queries.remove(name);
          publish();
          try {
            checkpoint(null, name);
          } catch (Checkpointer.NotSaved e) {
            // it is forgotten all the same; the others are saved at a later checkpoint
            checkpointFailures++;
            LOG.warn("standing queries' checkpoint failed: {}", e.getMessage());
          }
          return null;
        });
  }

  /**
   * The standing queries {@code by} may read, oldest first: every one, but for a token bound to
   * tenants those with a tenant column.
   */
  public List<Info> list(User by) {
    return call(
        () -> {
          List<Info> out = new ArrayList<>();
          for (StandingQuery q : queries.values()) {
            if (!by.boundToTenants() || q.tenantColumn) {
              out.add(info(q));
            }
          }
          return out;
        });
  }

  private static Info info(StandingQuery q) {
    String error = q.error;
    if (error == null && q.handle != null && q.handle.isDone()) {
      error = q.handle.error() != null ? q.handle.error() : "ended";
    }
    io.spyglass.sinks.QuerySinks out = q.sinks;
    return new Info(
        q.stored.name(),
        q.stored.query(),
        q.stored.owner(),
        q.stored.createdMs(),
        q.withoutTime,
        error,
        out == null ? List.of() : out.stats());
  }

  /** A look at a running query's combiner: its open windows and its event time. */
  private record Look(List<Result> open, Optional<Meta.EventTimeMeta> eventTime) {}

  /**
   * What a standing query reports over {@code [fromMs, toMs)}: the windows that overlap it, oldest
   * first, final ones (written, or taken since the last checkpoint) and open ones, and its
   * documents without a readable time. A token bound to tenants reads only its tenants' rows.
   *
   * @throws Refused 404 when there is none of that name, 403 when {@code by} is bound to tenants
   *     and the query has no tenant column
   */
  public StandingReport report(String name, long fromMs, long toMs, User by) {
    // the owning thread copies what memory holds, then the database is read: a window written
    // meanwhile is in both, and memory's copy is the same or newer
    record Held(
        StandingQuery query,
        List<WindowUpdate> finals,
        List<WindowUpdate> late,
        List<WindowUpdate> open,
        CompletableFuture<Look> look) {}
    Held held =
        call(
            () -> {
              StandingQuery q = queries.get(name);
              if (q == null) {
                throw new Refused(404, "No standing query named " + name);
              }
              if (by.boundToTenants() && !q.tenantColumn) {
                throw new Refused(
                    403,
                    "Standing query "
                        + name
                        + " has no column \""
                        + standing.tenantField()
                        + "\" grouping its rows by tenant: its rows mix tenants, and a token"
                        + " bound to tenants reads only its tenants' rows",
                    "Read a standing query that groups by "
                        + standing.tenantField()
                        + " and selects it (GET /api/standing-queries lists those you may read),"
                        + " or ask for one");
              }
              q.drain();
              List<WindowUpdate> f = new ArrayList<>();
              q.finals.forEach(i -> f.add(i.value()));
              List<WindowUpdate> l = new ArrayList<>();
              q.late.forEach(i -> l.add(i.value()));
              // the open windows as of every document read so far (after a flush of the workers)
              CompletableFuture<Look> look =
                  q.handle == null || q.handle.isDone()
                      ? CompletableFuture.completedFuture(null)
                      : engine.inspect(
                          q.id(), c -> new Look(c.peek(clock.getAsLong()), c.eventTime()));
              return new Held(q, f, l, new ArrayList<>(q.open.values()), look);
            });
    List<WindowUpdate> open = new ArrayList<>(); // the newest look first: it wins
    try {
      Look look = held.look().get(30, TimeUnit.SECONDS);
      if (look != null) {
        held.query().saw(look.eventTime());
        for (Result r : look.open()) {
          WindowUpdate w = WindowUpdate.of(r);
          open.add(w.isFinal() ? w.open() : w);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Refused(503, "Interrupted");
    } catch (ExecutionException | TimeoutException e) {
      throw new Refused(
          503,
          "The open windows of standing query " + name + " could not be read",
          e instanceof ExecutionException ? e.getCause() : e);
    }
    open.addAll(held.open());
    List<StandingReport.Window> windows =
        StandingReport.merge(
            store.windows(name, fromMs, toMs),
            held.finals(),
            held.late(),
            open,
            fromMs,
            toMs,
            standing.tenantField(),
            by.boundToTenants() ? by.tenants() : null);
    Info info = info(held.query());
    return new StandingReport(windows, info.withoutTime(), info.error());
  }

  @FunctionalInterface
  private interface Task<T> {
    T run() throws Exception;
  }

  /** Runs {@code task} on the owning thread and waits for it. */
  private <T> T call(Task<T> task) {
    if (closed) {
      throw new Refused(503, "The service is stopping");
    }
    Future<T> f =
        owner.submit(
            () -> {
              return task.run();
            });
    try {
      return f.get(120, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Refused(503, "Interrupted");
    } catch (TimeoutException e) {
      throw new Refused(503, "The standing queries did not answer within 120 s");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  private void drainAll() {
    drainQueued.set(false);
    for (StandingQuery q : queries.values()) {
      q.drain();
    }
  }

  private void checkpointQuietly() {
    try {
      checkpoint(null, null);
    } catch (RuntimeException e) {
      if (!closed) {
        checkpointFailures++;
        LOG.warn("standing queries' checkpoint failed: {}", e.toString());
      }
    }
  }

  /**
   * Takes a checkpoint and writes it: with {@code added} started at its cut, and {@code removed}
   * forgotten; a query whose state is over its bound stops. Owning thread only.
   */
  private void checkpoint(StandingQuery added, String removed) {
    Map<String, byte[]> states =
        checkpointer.take(queries, added, removed, this::drainAll, this::listen);
    if (added != null) {
      publish();
    }
    if (states == null) {
      return;
    }
    checkpoints++;
    lastCheckpointMs = clock.getAsLong();
    for (Runnable r : afterCheckpoint) {
      r.run();
    }
    states.forEach(
        (name, state) -> {
          StandingQuery q = queries.get(name);
          q.stateBytes = state == null ? 0 : state.length;
          if (q.stateBytes > standing.maxStateBytes()) {
            stop(q, state);
          }
        });
    // each query's count of documents without a time, for the listing and the metrics: looked at
    // after the next flush of the workers, not waited for
    for (StandingQuery q : queries.values()) {
      if (q.handle != null && !q.handle.isDone()) {
        engine
            .inspect(q.id(), QueryCombiner::eventTime)
            .thenAccept(
                e -> {
                  if (e != null) {
                    q.saw(e);
                  }
                });
      }
    }
  }

  /**
   * Stops a query whose state just grew over its bound, for good: its state and windows as of this
   * checkpoint stay, readable with the error; the others go on.
   */
  private void stop(StandingQuery q, byte[] state) {
    String error =
        "Its state grew to "
            + state.length
            + " bytes, over the "
            + standing.maxStateBytes()
            + " a standing query may keep (--max-standing-state): it stopped at the checkpoint of "
            + java.time.Instant.ofEpochMilli(clock.getAsLong())
            + ", its windows are as of then. Define it again with fewer groups (a narrower GROUP"
            + " BY) or shorter windows, or ask the operator to raise the bound";
    q.error = error;
    q.handle.kill();
    LOG.warn("standing query {} stopped: {}", q.name(), error);
    store.fail(q.name(), error);
    openWindowsOf(q, state);
  }

  /**
   * Holds the open windows of a stopped query's saved state, as a look at them would have shown
   * them then: its report keeps them (not final, with its error).
   */
  private void openWindowsOf(StandingQuery q, byte[] state) {
    if (state == null) {
      return;
    }
    try {
      Query query = q.checked().toQuery(q.id(), q.stored.createdMs());
      QueryCombiner c = QueryCombiner.restore(query, q.limits, (x, r) -> {}, clock, state);
      q.open.clear();
      for (Result r : c.peek(clock.getAsLong())) {
        WindowUpdate w = WindowUpdate.of(r);
        q.open.put(w.start(), w.isFinal() ? w.open() : w);
      }
      q.saw(c.eventTime());
    } catch (RuntimeException e) {
      LOG.warn("standing query {}: its open windows cannot be read: {}", q.name(), e.toString());
    }
  }

  /** The checkpoints' test hooks. */
  Checkpointer checkpointer() {
    return checkpointer;
  }

  /** Stops checkpointing; the queries end with the engine. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    try {
      call(
          () -> {
            checkpoint(null, null); // what was read so far needs no replay
            return null;
          });
    } catch (RuntimeException e) {
      LOG.warn("last checkpoint failed: {}", e.toString());
    }
    closed = true;
    owner.shutdownNow();
    try {
      owner.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
