package io.spyglass.service.runtime;

import io.spyglass.core.query.QueryStats;
import io.spyglass.core.run.CheckedQuery;
import io.spyglass.engine.Engine;
import io.spyglass.engine.EngineConfig;
import io.spyglass.engine.EngineMetrics;
import io.spyglass.engine.QueryHandle;
import io.spyglass.service.health.Health;
import io.spyglass.sources.Source;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The embedded {@link Engine} as a {@link QueryRuntime}. One dispatcher thread moves every query's
 * results from its handle to its listener ({@link ResultDispatcher}): a handle signals it has news
 * ({@link QueryHandle#onUpdate}), so thousands of queries cost nothing while they are quiet.
 *
 * <p>Standing queries run here: a checkpoint is the engine's ({@link Engine#checkpoint}), and each
 * saved query's marker goes through the same dispatcher as its results, in order with them.
 */
public final class EmbeddedRuntime implements QueryRuntime {
  private final Engine engine;
  private final boolean ownsEngine;
  private final String description;
  private final ResultDispatcher dispatcher =
      new ResultDispatcher("spyglass-results", 100, null).start();
  private final AtomicLong checkpoints = new AtomicLong();
  private volatile boolean closed;

  private EmbeddedRuntime(Engine engine, boolean ownsEngine, String description) {
    this.engine = engine;
    this.ownsEngine = ownsEngine;
    this.description = description;
  }

  /**
   * A runtime over an engine its caller started and closes (e.g. a test's, or a benchmark's that
   * compares it with and without the service): closing the runtime ends its deliveries, not the
   * engine.
   */
  public static EmbeddedRuntime over(Engine engine) {
    return new EmbeddedRuntime(engine, false, "embedded engine");
  }

  /**
   * Starts an engine on {@code source}. The source's end does not stop the engine: a service keeps
   * taking queries (they see no more records).
   */
  public static EmbeddedRuntime start(Source source, EngineConfig config) {
    EmbeddedRuntime r = startPaused(source, config);
    r.engine.resume();
    return r;
  }

  /**
   * As {@link #start}, but the engine reads nothing until {@link Engine#resume}: queries that must
   * see every record (restored standing queries) start first.
   */
  public static EmbeddedRuntime startPaused(Source source, EngineConfig config) {
    Engine engine = Engine.startPaused(source, config.withStopWhenSourceEnds(false));
    return new EmbeddedRuntime(
        engine,
        true,
        "embedded engine on "
            + source.describe()
            + " ("
            + config.workers()
            + (config.workers() == 1 ? " worker)" : " workers)"));
  }

  /** Starts reading the source, after {@link #startPaused} and the submits that must see it all. */
  public void resume() {
    engine.resume();
  }

  /**
   * The engine, for benchmarks that compare it with and without the service and for tests that look
   * inside it; the service itself goes through this runtime's methods.
   */
  public Engine engine() {
    return engine;
  }

  @Override
  public void submit(String id, CheckedQuery query, ResultListener listener) {
    if (closed) {
      throw new IllegalStateException("The runtime has stopped");
    }
    QueryHandle h = engine.submit(id, query);
    dispatcher.add(id, h, listener, 0);
  }

  @Override
  public void submitStanding(
      String id, CheckedQuery query, StandingOptions options, ResultListener listener) {
    if (closed) {
      throw new IllegalStateException("The runtime has stopped");
    }
    QueryHandle h = engine.submit(id, query, submitOptions(options));
    dispatcher.add(id, h, listener, 0);
  }

  /** A standing query's options as the engine takes them: its results are never dropped. */
  private static Engine.SubmitOptions submitOptions(StandingOptions o) {
    return new Engine.SubmitOptions(o.createdMs(), o.state(), true);
  }

  @Override
  public boolean awaitRunning(String id, long timeout, TimeUnit unit) throws InterruptedException {
    ResultDispatcher.Running r = dispatcher.get(id);
    return r == null || r.query.awaitRunning(timeout, unit);
  }

  @Override
  public CompletableFuture<CheckpointCut> checkpoint(
      Collection<String> save, List<StandingStart> startAtCut) {
    if (closed) {
      return CompletableFuture.failedFuture(new IllegalStateException("The runtime has stopped"));
    }
    long n = checkpoints.incrementAndGet();
    // held before the checkpoint is asked for: no result after its cut passes the marker
    List<String> held = new ArrayList<>();
    for (String id : save) {
      if (dispatcher.hold(id)) {
        held.add(id);
      }
    }
    List<String> started = new ArrayList<>(); // at the cut, on the reader thread, before completion
    CompletableFuture<Engine.Checkpoint> f;
    try {
      f =
          engine.checkpoint(
              position -> {
                for (StandingStart s : startAtCut) {
                  QueryHandle h = engine.submit(s.id(), s.query(), submitOptions(s.options()));
                  dispatcher.add(s.id(), h, s.listener(), 0, true);
                  started.add(s.id());
                }
                List<String> ids = new ArrayList<>(held);
                ids.addAll(started);
                return ids;
              });
    } catch (RuntimeException e) {
      held.forEach(dispatcher::release);
      return CompletableFuture.failedFuture(e);
    }
    return f.handle(
        (cp, error) -> {
          if (error != null) {
            held.forEach(dispatcher::release);
            for (String id : started) { // none of them runs when the checkpoint failed
              ResultDispatcher.Running r = dispatcher.get(id);
              if (r != null) {
                r.query.kill();
              }
              dispatcher.release(id);
            }
            throw error instanceof CompletionException c ? c : new CompletionException(error);
          }
          Set<String> saved = new HashSet<>();
          for (String id : concat(held, started)) {
            Engine.QueryState st = cp.queries().get(id);
            if (st == null) {
              dispatcher.release(id); // ended: nothing saved
            } else {
              dispatcher.mark(
                  id, st.emitted(), new CheckpointMarker(n, cp.position(), st.snapshot()));
              saved.add(id);
            }
          }
          return new CheckpointCut(n, cp.position(), saved);
        });
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  @Override
  public CompletableFuture<OpenWindows> inspect(String id, long nowMs, boolean windows) {
    return engine.inspect(
        id, c -> new OpenWindows(windows ? c.peek(nowMs) : List.of(), c.eventTime()));
  }

  @Override
  public void resumeDelivery(String id) {
    dispatcher.wake(id);
  }

  @Override
  public void cancel(String id) {
    ResultDispatcher.Running r = dispatcher.get(id);
    if (r != null) {
      r.query.kill();
    }
  }

  @Override
  public long recordBytesHeld() {
    return engine.meanRecordBytes();
  }

  @Override
  public List<Health.Problem> problems() {
    List<Health.Problem> out = new ArrayList<>();
    if (closed) {
      return out;
    }
    if (!dispatcher.isAlive()) {
      out.add(
          Health.Problem.down(
              "The thread that delivers results (spyglass-results) has stopped: no query gets"
                  + " results any more; restart the service"));
    }
    if (engine.failure() != null) {
      out.add(
          Health.Problem.down(
              "The engine failed and stopped every query; restart the service (the log says"
                  + " why)"));
    } else if (engine.sourceError() != null) {
      out.add(
          Health.Problem.down(
              "The source failed: no record is read any more; fix the source and restart the"
                  + " service (the log says why)"));
    } else if (engine.sourceEnded()) {
      out.add(
          Health.Problem.degraded(
              "The source has ended: queries see no new records; restart the service with a"
                  + " source that goes on"));
    } else if (engine.isStopped()) {
      out.add(Health.Problem.down("The engine has stopped; restart the service"));
    }
    return out;
  }

  @Override
  public void kill(String id) {
    ResultDispatcher.Running r = dispatcher.get(id);
    if (r != null) {
      r.query.finish();
    }
  }

  @Override
  public void killAll() {
    engine.finishAll();
  }

  @Override
  public Map<String, QueryStats> progress() {
    return engine.metrics().queries();
  }

  @Override
  public Optional<QueryStats> progress(String id) {
    ResultDispatcher.Running r = dispatcher.get(id);
    return r == null ? Optional.empty() : r.query.stats();
  }

  @Override
  public RuntimeStats stats() {
    EngineMetrics m = engine.metrics();
    return new RuntimeStats(
        m.recordsRead(),
        m.malformed(),
        m.recordsPerSecond(),
        m.runningQueries(),
        m.resultsEmitted(),
        engine.sourceError());
  }

  @Override
  public void sampleRecords(int everyN, RecordSampler sampler) {
    engine.sampleRecords(everyN, sampler == null ? null : sampler::sample);
  }

  @Override
  public String describe() {
    return description;
  }

  @Override
  public void close() {
    if (ownsEngine) {
      engine.close();
    }
    closed = true;
    dispatcher.close(); // the engine ended the queries: their listeners hear of it
  }
}
