package io.spyglass.service.metering;

import io.spyglass.core.plan.Bql;
import io.spyglass.core.plan.QueryLimits;
import io.spyglass.core.query.QueryCombiner;
import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import io.spyglass.engine.Engine;
import io.spyglass.engine.ingest.Ingestor;
import io.spyglass.service.auth.User;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
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
   */
  public record Info(
      String name, String query, String owner, long createdMs, long withoutTime, String error) {}

  /** A window as read: from the database, or still held in memory (open, or not yet written). */
  public record WindowView(long start, long end, boolean isFinal, String records, long late) {}

  /**
   * What a standing query reports over a span of time.
   *
   * @param windows the windows that overlap the span, oldest first
   * @param withoutTime documents the query read so far without a readable event time: they are in
   *     no window (0 for a query without event-time windows)
   * @param error why the query stopped; null while it runs
   */
  public record Report(List<WindowView> windows, long withoutTime, String error) {}

  /** Refused: the name is taken, unknown, or the query is not valid; the message says which. */
  public static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int status;

    Refused(int status, String message) {
      super(message);
      this.status = status;
    }

    public int status() {
      return status;
    }
  }

  private final Engine engine;
  private final StandingStore store;
  private final Checkpointer checkpointer;
  private final QueryLimits limits;
  private final LongSupplier clock;
  private final Map<String, StandingQuery> queries = new LinkedHashMap<>();
  private final ScheduledExecutorService owner;
  private final AtomicBoolean drainQueued = new AtomicBoolean();
  private volatile long checkpoints;
  private volatile boolean closed;

  private StandingQueries(
      Engine engine,
      StandingStore store,
      Ingestor ingestor,
      QueryLimits limits,
      LongSupplier clock) {
    this.engine = engine;
    this.store = store;
    this.checkpointer = new Checkpointer(engine, store, ingestor);
    this.limits = limits;
    this.clock = clock;
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
   * (the caller resumes it after), and checkpoints every {@code checkpointEveryMs}.
   */
  public static StandingQueries restore(
      Engine engine,
      StandingStore store,
      Ingestor ingestor,
      QueryLimits limits,
      long checkpointEveryMs,
      LongSupplier clock)
      throws InterruptedException {
    StandingQueries s = new StandingQueries(engine, store, ingestor, limits, clock);
    for (StandingStore.Stored st : store.list()) {
      StandingQuery q = new StandingQuery(st);
      try {
        q.handle =
            engine.submit(
                q.id(), st.query(), new Engine.SubmitOptions(st.createdMs(), st.state(), true));
        s.listen(q);
      } catch (RuntimeException e) {
        q.error = "cannot restart: " + e.getMessage();
        LOG.error("standing query {} cannot restart: {}", st.name(), e.getMessage());
      }
      s.queries.put(st.name(), q);
    }
    for (StandingQuery q : s.queries.values()) {
      if (q.handle != null) {
        q.handle.awaitRunning(30, TimeUnit.SECONDS);
      }
    }
    s.owner.scheduleWithFixedDelay(
        s::checkpointQuietly, checkpointEveryMs, checkpointEveryMs, TimeUnit.MILLISECONDS);
    return s;
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

  /** Checkpoints taken since the start. */
  public long checkpoints() {
    return checkpoints;
  }

  /**
   * Starts a standing query at the next cut of the stream and writes it with its state before
   * returning.
   *
   * @throws Refused 409 when the name is taken, 400 when it is not a valid name
   * @throws io.spyglass.core.syntax.BqlException when the query is not valid
   */
  public Info create(String name, String query, String user) {
    if (!name.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,99}")) {
      throw new Refused(
          400,
          "A standing query's name is 1 to 100 letters, digits, '.', '_' or '-', starting with a"
              + " letter or digit: '"
              + name
              + "' is not");
    }
    if (!Bql.compile(query, limits).runsForever()) {
      throw new Refused(
          400,
          "A standing query runs until it is deleted: its stream is STREAM(FOREVER), e.g. SELECT"
              + " org, SUM(quantity) AS total FROM STREAM(FOREVER) GROUP BY org WINDOWING"
              + " TUMBLING(1h, EVENT_TIME(time), LATENESS 10m)");
    }
    return call(
        () -> {
          if (queries.containsKey(name)) {
            throw new Refused(409, "A standing query named " + name + " exists");
          }
          StandingQuery q =
              new StandingQuery(
                  new StandingStore.Stored(name, query, user, clock.getAsLong(), null));
          checkpoint(q, null);
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
          queries.remove(name);
          checkpoint(null, name);
          return null;
        });
  }

  /** Every standing query, oldest first. */
  public List<Info> list() {
    return call(
        () -> {
          List<Info> out = new ArrayList<>();
          for (StandingQuery q : queries.values()) {
            out.add(info(q));
          }
          return out;
        });
  }

  private static Info info(StandingQuery q) {
    String error = q.error;
    if (error == null && q.handle != null && q.handle.isDone()) {
      error = q.handle.error() != null ? q.handle.error() : "ended";
    }
    return new Info(
        q.stored.name(),
        q.stored.query(),
        q.stored.owner(),
        q.stored.createdMs(),
        q.withoutTime,
        error);
  }

  /** A look at a running query's combiner: its open windows and its event time. */
  private record Look(List<Result> open, Optional<Meta.EventTimeMeta> eventTime) {}

  /**
   * What a standing query reports over {@code [fromMs, toMs)}: the windows that overlap it, oldest
   * first, final ones (written, or taken since the last checkpoint) and open ones, and its
   * documents without a readable time.
   *
   * @throws Refused 404 when there is none of that name
   */
  public Report report(String name, long fromMs, long toMs) {
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
      throw new Refused(503, "The open windows could not be read: " + e);
    }
    open.addAll(held.open());
    TreeMap<Long, WindowView> out = new TreeMap<>();
    for (StandingStore.Window w : store.windows(name, fromMs, toMs)) {
      out.put(w.start(), new WindowView(w.start(), w.end(), true, w.records(), w.late()));
    }
    for (WindowUpdate w : held.finals()) {
      if (w.end() > fromMs && w.start() < toMs) {
        out.put(w.start(), new WindowView(w.start(), w.end(), true, w.records(), w.late()));
      }
    }
    for (WindowUpdate w : held.late()) {
      WindowView v = out.get(w.start());
      if (v != null) {
        out.put(
            w.start(), new WindowView(v.start(), v.end(), true, v.records(), v.late() + w.late()));
      }
    }
    for (WindowUpdate w : open) {
      if (w.end() > fromMs && w.start() < toMs && !out.containsKey(w.start())) {
        out.put(w.start(), new WindowView(w.start(), w.end(), false, w.records(), w.late()));
      }
    }
    Info info = info(held.query());
    return new Report(new ArrayList<>(out.values()), info.withoutTime(), info.error());
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
        LOG.warn("standing queries' checkpoint failed: {}", e.toString());
      }
    }
  }

  /**
   * Takes a checkpoint and writes it: with {@code added} started at its cut, and {@code removed}
   * forgotten. Owning thread only.
   */
  private void checkpoint(StandingQuery added, String removed) {
    if (checkpointer.take(queries, added, removed, this::drainAll, this::listen)) {
      checkpoints++;
    }
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
