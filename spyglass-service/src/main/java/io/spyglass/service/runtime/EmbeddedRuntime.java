package io.spyglass.service.runtime;

import io.spyglass.core.query.QueryStats;
import io.spyglass.core.result.Result;
import io.spyglass.core.run.CheckedQuery;
import io.spyglass.engine.Engine;
import io.spyglass.engine.EngineConfig;
import io.spyglass.engine.EngineMetrics;
import io.spyglass.engine.QueryHandle;
import io.spyglass.engine.source.Source;
import io.spyglass.service.health.Health;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded {@link Engine} as a {@link QueryRuntime}. One dispatcher thread moves every query's
 * results from its handle to its listener: a handle signals it has news ({@link
 * QueryHandle#onUpdate}), so thousands of queries cost nothing while they are quiet.
 */
public final class EmbeddedRuntime implements QueryRuntime {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedRuntime.class);

  private final Engine engine;
  private final String description;
  private final Map<String, Running> running = new ConcurrentHashMap<>();
  private final BlockingQueue<Running> news = new LinkedBlockingQueue<>();
  private final Thread dispatcher;
  private volatile boolean closed;

  /**
   * One query: its handle, its listener, and whether it waits in {@link #news} already (itself, as
   * an {@link AtomicBoolean}); run by its handle when it has news.
   */
  @SuppressWarnings("serial") // never serialized
  private final class Running extends AtomicBoolean implements Runnable {
    final QueryHandle handle;
    final ResultListener listener;
    boolean ended;

    Running(QueryHandle handle, ResultListener listener) {
      this.handle = handle;
      this.listener = listener;
    }

    @Override
    public void run() {
      signal(this);
    }
  }

  private EmbeddedRuntime(Engine engine, String description) {
    this.engine = engine;
    this.description = description;
    this.dispatcher = new Thread(this::dispatch, "spyglass-results");
    dispatcher.setDaemon(true);
    dispatcher.start();
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
    Running r = new Running(h, listener);
    running.put(id, r);
    h.onUpdate(r);
    signal(r); // results queued before the listener was set
  }

  private void signal(Running r) {
    if (r.compareAndSet(false, true)) {
      news.add(r);
    }
  }

  private void dispatch() {
    while (!closed) {
      Running r;
      try {
        r = news.poll(100, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      if (r != null) {
        r.set(false); // news arriving from now on queues it again
        try {
          deliver(r);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        } catch (Throwable t) { // one query's failure must not stop every query's results
          failed(r, t);
        }
      }
    }
  }

  private void deliver(Running r) throws InterruptedException {
    if (r.ended) {
      return;
    }
    QueryHandle h = r.handle;
    Result result;
    while ((result = h.poll(0, TimeUnit.MILLISECONDS)) != null) {
      r.listener.onResult(result);
    }
    if (h.isDone()) {
      while ((result = h.poll(0, TimeUnit.MILLISECONDS)) != null) {
        r.listener.onResult(result);
      }
      r.ended = true;
      running.remove(h.id(), r);
      r.listener.onEnd(h.error(), h.finalStats().map(EmbeddedRuntime::progress).orElse(null));
    }
  }

  /**
   * A query's listener threw: the query is stopped in the engine and ends with the error; the other
   * queries go on.
   */
  private void failed(Running r, Throwable t) {
    String id = r.handle.id();
    LOG.error("delivering the results of {} failed; the query is stopped", id, t);
    if (r.ended) {
      return; // it failed in its end: nothing more to tell
    }
    r.ended = true;
    running.remove(id, r);
    try {
      r.handle.kill();
    } catch (RuntimeException e) {
      LOG.warn("could not stop {} in the engine: {}", id, e.toString());
    }
    try {
      r.listener.onEnd(ResultListener.failure(t), null);
    } catch (Throwable again) {
      LOG.error("result listener of {} failed at its end", id, again);
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
    Running r = running.get(id);
    if (r != null) {
      r.handle.finish();
    }
  }

  @Override
  public void killAll() {
    engine.finishAll();
  }

  @Override
  public Map<String, QueryProgress> progress() {
    Map<String, QueryProgress> out = new HashMap<>();
    for (Map.Entry<String, QueryStats> e : engine.metrics().queries().entrySet()) {
      out.put(e.getKey(), progress(e.getValue()));
    }
    return out;
  }

  @Override
  public Optional<QueryProgress> progress(String id) {
    Running r = running.get(id);
    return r == null ? Optional.empty() : r.handle.stats().map(EmbeddedRuntime::progress);
  }

  private static QueryProgress progress(QueryStats s) {
    return new QueryProgress(s.seen(), s.matched());
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
    dispatcher.interrupt();
    try {
      dispatcher.join(2_000);
      for (Running r : running.values()) {
        try {
          deliver(r); // the engine ended them: their listeners hear of it
        } catch (InterruptedException e) {
          throw e;
        } catch (Throwable t) {
          failed(r, t);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
