package io.spyglass.engine;

import io.spyglass.core.query.Query;
import io.spyglass.core.query.QueryStats;
import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A running query's handle: its id, its results as they are emitted, and a way to stop it. Results
 * wait in a queue bounded by {@link EngineConfig#resultQueue()} results and {@link
 * EngineConfig#resultQueueRecords()} records: a subscriber that leaves it full is cut off (the
 * query is stopped with {@link #error()} set) so that it never stalls ingestion or other queries,
 * or, with {@link EngineConfig#resultBackPressure()}, holds up the reading of the source until it
 * catches up.
 *
 * <p>Thread-safe: results are offered by the engine's combiner thread and taken by any thread;
 * waiting is on the handle's own monitor (a queue made at the first result, no locks or latches of
 * its own: ten thousand quiet queries hold little).
 */
public final class QueryHandle {
  private volatile QueryStats finalStats;

  private final Query query;
  private final Engine engine;
  private final int maxResults;
  private final int maxRecords;
  private final boolean backPressure;

  // unread results (made at the first) and their records; guarded by this
  private ArrayDeque<Result> results;
  private int queuedResults;
  private long queuedRecords;
  private boolean backlogged;
  private String cutOffReason;

  // set once, under this, then waited for on this
  private volatile boolean done;
  private volatile boolean running;

  /** Each worker's counters of the query as it handed on its last partial; made at the first. */
  private QueryStats[] atPartial;

  private volatile String error;
  private volatile long emitted;
  private volatile Runnable onUpdate;

  QueryHandle(Query query, EngineConfig config, Engine engine, boolean backPressure) {
    this.query = query;
    this.engine = engine;
    this.maxResults = config.resultQueue();
    this.maxRecords = config.resultQueueRecords();
    this.backPressure = backPressure || config.resultBackPressure();
  }

  public String id() {
    return query.id();
  }

  public Query query() {
    return query;
  }

  /**
   * The next result, waiting up to {@code timeout}; null when none came in time, or when the query
   * is {@link #isDone() done} and every result has been taken.
   */
  public synchronized Result poll(long timeout, TimeUnit unit) throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    while (true) {
      Result r = results == null ? null : results.poll();
      if (r != null) {
        return taken(r);
      }
      if (done) {
        return null;
      }
      if (!waitUntil(deadline)) {
        return null;
      }
    }
  }

  /** Waits on this (held) until notified or {@code deadline}; false once it has passed. */
  private boolean waitUntil(long deadlineNanos) throws InterruptedException {
    long left = deadlineNanos - System.nanoTime();
    if (left <= 0) {
      return false;
    }
    TimeUnit.NANOSECONDS.timedWait(this, left);
    return true;
  }

  private Result taken(Result r) {
    queuedResults--;
    queuedRecords -= r.records().size();
    if (backlogged && queuedResults < maxResults && queuedRecords < maxRecords) {
      backlogged = false;
      engine.backlog(-1);
    }
    return r;
  }

  /** True once the query has ended (finished, killed or failed); unread results may remain. */
  public boolean isDone() {
    return done;
  }

  /** Waits until the query ends; true if it did within the timeout. */
  public synchronized boolean awaitDone(long timeout, TimeUnit unit) throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    while (!done) {
      if (!waitUntil(deadline)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Waits until every filter worker runs the query: records read from then on reach it. True if it
   * did within the timeout (or the query already ended).
   */
  public synchronized boolean awaitRunning(long timeout, TimeUnit unit)
      throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    while (!running && !done) {
      if (!waitUntil(deadline)) {
        return false;
      }
    }
    return true;
  }

  /** Why the query was stopped by the engine (e.g. its subscriber fell behind), or null. */
  /**
   * Its counters when it ended (records seen while it ran, records its filter passed), as of the
   * workers' last tick or their last partial of it; empty while it runs, or when it ended before
   * any worker counted it.
   */
  public Optional<QueryStats> finalStats() {
    return Optional.ofNullable(finalStats);
  }

  /**
   * Its counters now, as of the workers' last tick or their last partial of it: while its final
   * result waits to be read, they are the ones that result holds. Once it ended, its {@link
   * #finalStats}. Empty when no worker has counted it.
   */
  public Optional<QueryStats> stats() {
    if (!isDone()) {
      QueryStats now = engine.stats(query.id());
      if (now != null) {
        return Optional.of(now);
      }
    }
    return finalStats(); // ended, possibly since the check above
  }

  public String error() {
    return error;
  }

  /** Results emitted so far. */
  public long emitted() {
    return emitted;
  }

  /** Stops the query; it emits nothing more and its state is freed. */
  public void kill() {
    engine.kill(query.id());
  }

  /**
   * Ends the query now, as if its duration were over: at the next tick it emits its final result,
   * holding every record read until then, and stops.
   */
  public void finish() {
    engine.finish(query.id());
  }

  /**
   * Calls {@code listener} after each result is queued and once when the query ends, so that a
   * reader can wait for many queries at once instead of polling each. The listener runs on the
   * engine's combiner thread: it must return at once (e.g. hand the handle to a thread of its own
   * that calls {@link #poll}). Results queued before the listener was set do not call it: poll once
   * after setting it. One listener per handle; a second replaces the first.
   */
  public void onUpdate(Runnable listener) {
    this.onUpdate = listener;
  }

  private void notifyUpdate() {
    Runnable l = onUpdate;
    if (l != null) {
      l.run();
    }
  }

  /**
   * Called by the combiner thread, never waits. Returns false when the subscriber is too slow (see
   * {@link #cutOffReason()}). A result offered after the query ended is dropped.
   */
  synchronized boolean offer(Result r) {
    if (isDone()) {
      return true;
    }
    int size = r.records().size();
    int factor = backPressure ? 2 : 1;
    boolean full =
        queuedResults >= factor * maxResults
            || (queuedResults > 0 && queuedRecords + size > (long) factor * maxRecords);
    if (full) {
      cutOffReason =
          "The result subscriber fell behind by "
              + queuedResults
              + " results ("
              + queuedRecords
              + " records) and was cut off; read results as they come, or use a longer window"
              + " or a smaller LIMIT";
      return false;
    }
    queue().add(r);
    queuedResults++;
    queuedRecords += size;
    emitted++;
    notifyAll();
    notifyUpdate();
    if (backPressure
        && !backlogged
        && (queuedResults >= maxResults || queuedRecords >= maxRecords)) {
      backlogged = true;
      engine.backlog(1);
    }
    return true;
  }

  /** Why {@link #offer} refused a result. */
  synchronized String cutOffReason() {
    return cutOffReason;
  }

  private ArrayDeque<Result> queue() {
    if (results == null) {
      results = new ArrayDeque<>(4);
    }
    return results;
  }

  synchronized void running() {
    running = true;
    notifyAll();
  }

  /**
   * Keeps a worker's counters of the query as it hands on a partial of it (before the partial goes
   * to the combiner, so that the combiner's thread sees them when the query ends).
   */
  synchronized void partialStats(int worker, int workers, QueryStats s) {
    if (atPartial == null) {
      atPartial = new QueryStats[workers];
    }
    atPartial[worker] = s;
  }

  /** A worker's counters as of its last partial of the query; null when it handed on none. */
  synchronized QueryStats partialStats(int worker) {
    return atPartial == null ? null : atPartial[worker];
  }

  synchronized void end(String errorOrNull) {
    if (done) {
      return;
    }
    if (errorOrNull != null && error == null) {
      error = errorOrNull;
    }
    if (backlogged) {
      // nothing more comes: what waits unread must not hold up the source
      backlogged = false;
      engine.backlog(-1);
    }
    QueryStats last = engine.stats(query.id());
    if (last != null) {
      finalStats = last;
    }
    engine.queryEnded(query.id());
    done = true;
    notifyAll();
    notifyUpdate();
  }

  /** The engine clock, or the wall clock if that fails too. */
  private long now() {
    try {
      return engine.config().clock().getAsLong();
    } catch (RuntimeException e) {
      return System.currentTimeMillis();
    }
  }

  /**
   * Ends the query from outside the combiner, after the engine failed: a final result without
   * records carries the error, unless the query already ended.
   */
  synchronized void abort(String message) {
    if (isDone()) {
      return;
    }
    Meta.QueryError e =
        new Meta.QueryError(
            message, "Every query was stopped; see the engine's log, and start a new engine", true);
    Meta meta =
        new Meta(
            query.id(),
            query.text(),
            query.receiveTimeMs(),
            Optional.of(now()),
            Optional.empty(),
            Map.of(),
            List.of(e),
            true);
    queue().add(new Result(List.of(), meta));
    queuedResults++;
    emitted++;
    end(message);
  }
}
