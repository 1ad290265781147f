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
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The embedded {@link Engine} as a {@link QueryRuntime}. One dispatcher thread moves every query's
 * results from its handle to its listener ({@link ResultDispatcher}): a handle signals it has news
 * ({@link QueryHandle#onUpdate}), so thousands of queries cost nothing while they are quiet.
 */
public final class EmbeddedRuntime implements QueryRuntime {
  private final Engine engine;
  private final String description;
  private final ResultDispatcher dispatcher =
      new ResultDispatcher("spyglass-results", 100, null).start();
  private volatile boolean closed;

  private EmbeddedRuntime(Engine engine, String description) {
    this.engine = engine;
    this.description = description;
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
        "embedded engine on "
            + source.describe()
            + " ("
            + config.workers()
            + (config.workers() == 1 ? " worker)" : " workers)"));
  }

  /** The engine, for benchmarks that compare it with and without the service. */
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
    engine.close();
    closed = true;
    dispatcher.close(); // the engine ended the queries: their listeners hear of it
  }
}
