package io.spyglass.service.metering;

import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.run.CheckedQuery;
import io.spyglass.engine.ingest.Ingestor;
import io.spyglass.service.auth.User;
import io.spyglass.service.runtime.CheckpointMarker;
import io.spyglass.service.runtime.QueryRuntime;
import io.spyglass.sinks.SinkSpec;
import io.spyglass.sinks.SinkStats;
import io.spyglass.sinks.Sinks;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Standing queries: queries without end that survive restarts, run through the service's {@link
 * QueryRuntime}. This is their registry (define, list, read, delete, with who may do what); one
 * thread owns them ({@link StandingActor}): it takes their results as they come, and every
 * checkpoint period it takes a checkpoint ({@link Checkpointer}) that writes, in one transaction,
 * each query's state, the final windows and late counts the states cover, and the ingest log
 * position they cover. A restart restores the states and replays the log from that position: every
 * document is counted once. Their windows are read through {@link StandingWindows}.
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

  private final QueryRuntime runtime;
  private final StandingActor actor;
  private final Checkpointer checkpointer;
  private final StandingWindows windows;
  private final StandingStarts starts;

  /** The limits of other queries. */
  private final QueryLimits limits;

  /** The exact groups a window of a standing query defined now keeps. */
  private final int maxGroups;

  private final Limits standing;

  /** Where standing queries deliver their results besides their windows; null: nowhere. */
  private final Sinks sinks;

  /** The standing queries, by name, oldest first. Owning thread only. */
  private final Map<String, StandingQuery> queries = new LinkedHashMap<>();

  /** A copy of {@link #queries} for readers off the owning thread (metrics, health). */
  private volatile List<StandingQuery> published = List.of();

  private final StandingCheckpoints checkpoints;
  private volatile boolean closed;

  /** What a standing query's stream brings besides results, on the owning thread. */
  private final StandingActor.Stream stream =
      new StandingActor.Stream() {
        @Override
        public void marked(StandingQuery q, CheckpointMarker marker) {
          checkpointer.marked(q, marker);
        }

        @Override
        public void ended(StandingQuery q, String error) {
          q.endError = error;
          q.ended = true;
          checkpointer.ended(q);
        }
      };

  private StandingQueries(
      QueryRuntime runtime,
      StandingStore store,
      Ingestor ingestor,
      QueryLimits queryLimits,
      Limits standing,
      LongSupplier clock,
      Sinks sinks) {
    this.runtime = runtime;
    this.sinks = sinks;
    this.limits = queryLimits;
    // standing queries keep fewer exact groups than other queries: they run for ever
    this.maxGroups = Math.min(queryLimits.maxExactGroups(), standing.maxGroups());
    this.standing = standing;
    this.actor = new StandingActor(runtime);
    this.checkpointer =
        new Checkpointer(runtime, store, ingestor, actor, q -> actor.listener(q, stream));
    this.windows = new StandingWindows(runtime, store, clock);
    this.checkpoints =
        new StandingCheckpoints(
            checkpointer, queries, runtime, store, windows, standing.maxStateBytes(), clock);
    this.starts =
        new StandingStarts(
            runtime, queryLimits, standing, sinks, windows, checkpoints, clock, actor, stream);
  }

  /**
   * Restores every standing query of {@code store} on {@code runtime}, which must not be reading
   * yet (the caller resumes it after), and checkpoints every {@code checkpointEveryMs}. A query
   * stored as failed stays so, with its windows. Each delivers its results to its sinks through
   * {@code sinks} (null: standing queries have no sinks, their stored sinks get nothing).
   */
  public static StandingQueries restore(
      QueryRuntime runtime,
      StandingStore store,
      Ingestor ingestor,
      QueryLimits queryLimits,
      Limits standing,
      long checkpointEveryMs,
      LongSupplier clock,
      Sinks sinks)
      throws InterruptedException {
    StandingQueries s =
        new StandingQueries(runtime, store, ingestor, queryLimits, standing, clock, sinks);
    s.actor.call(
        () -> {
          for (StandingStore.Stored st : store.list()) {
            StandingQuery q = s.starts.restored(st);
            s.queries.put(st.name(), q);
          }
          s.publish();
          return null;
        });
    for (StandingQuery q : s.published) {
      if (q.started) {
        runtime.awaitRunning(q.id(), 30, TimeUnit.SECONDS);
      }
    }
    s.actor.every(s.checkpoints::periodic, checkpointEveryMs);
    return s;
  }

  private void publish() {
    published = List.copyOf(queries.values());
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
    return checkpoints.taken();
  }

  /** Checkpoints that failed since the start (each is tried again a period later). */
  public long checkpointFailures() {
    return checkpoints.failures();
  }

  /** When the last checkpoint was written (epoch ms); the start before the first. */
  public long lastCheckpointMs() {
    return checkpoints.lastMs();
  }

  /** How the standing queries are doing, as of now, without waiting for their thread. */
  public record Status(String name, boolean running, long withoutTime, long stateBytes) {}

  /** Each standing query's status, oldest first; cheap, for metrics and health. */
  public List<Status> status() {
    List<Status> out = new ArrayList<>();
    for (StandingQuery q : published) {
      out.add(new Status(q.name(), q.running(), q.withoutTime, q.stateBytes));
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
    checkpoints.after(r);
  }

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
    StandingRules.mayDefine(name, sinkSpecs, by, sinks != null, standing);
    // checked once, here: the runtime runs this plan
    CheckedQuery checked = CheckedQuery.check(query, limits.withMaxExactGroups(maxGroups));
    StandingRules.runsForever(checked);
    return actor.callAndAwait(
        () ->
            starts
                .define(name, checked, sinkSpecs, by, maxGroups, queries)
                .thenApply(
                    q -> {
                      publish();
                      return info(q);
                    }));
  }

  /**
   * Ends a standing query and forgets it and its windows.
   *
   * @param by who asks: its owner or an admin
   * @throws Refused 404 when there is none of that name, 403 when {@code by} may not end it
   */
  public void delete(String name, User by) {
    actor.callAndAwait(
        () -> {
          StandingQuery q = queries.get(name);
          if (q == null) {
            throw new Refused(404, "No standing query named " + name);
          }
          StandingRules.mayEnd(q, by);
          q.deleted = true; // what still comes from it is dropped
          if (q.started) {
            runtime.cancel(q.id());
          }
          if (q.sinks != null) {
            q.sinks.release(); // what they hold is still delivered, within their bounds
          }
          queries.remove(name);
          publish();
          // it is forgotten all the same when the checkpoint fails; the others are saved later
          return checkpoints.take(null, name).handle((states, error) -> null);
        });
  }

  /**
   * The standing queries {@code by} may read, oldest first: every one, but for a token bound to
   * tenants those with a tenant column.
   */
  public List<Info> list(User by) {
    return actor.call(
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
    if (error == null && q.ended) {
      error = q.endError != null ? q.endError : "ended";
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

  /**
   * What a standing query reports over {@code [fromMs, toMs)}: the windows that overlap it, oldest
   * first, final ones (written, or taken since the last checkpoint) and open ones, and its
   * documents without a readable time. A token bound to tenants reads only its tenants' rows.
   *
   * @throws Refused 404 when there is none of that name, 403 when {@code by} is bound to tenants
   *     and the query has no tenant column
   */
  public StandingReport report(String name, long fromMs, long toMs, User by) {
    StandingWindows.Held held =
        actor.call(
            () -> {
              StandingQuery q = queries.get(name);
              if (q == null) {
                throw new Refused(404, "No standing query named " + name);
              }
              StandingRules.mayRead(q, by, standing);
              return windows.hold(q);
            });
    List<StandingReport.Window> w =
        windows.report(
            held, fromMs, toMs, standing.tenantField(), by.boundToTenants() ? by.tenants() : null);
    Info info = info(held.query());
    return new StandingReport(w, info.withoutTime(), info.error());
  }

  /** The checkpoints' test hooks. */
  Checkpointer checkpointer() {
    return checkpointer;
  }

  /** Stops checkpointing, after a last checkpoint; the queries end with the runtime. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    try {
      actor.callAndAwait(() -> checkpoints.take(null, null)); // what was read needs no replay
    } catch (RuntimeException e) {
      LOG.warn("last checkpoint failed: {}", e.toString());
    }
    closed = true;
    checkpoints.closing();
    actor.close();
  }
}
