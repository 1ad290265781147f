package io.spyglass.engine;

import io.spyglass.core.SpyglassClock;
import io.spyglass.core.query.Query;
import io.spyglass.core.query.QueryStats;
import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import io.spyglass.core.run.AbstractRunningQuery;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A query running on the embedded engine: its id, its results as they are emitted, and a way to
 * stop it (the engine's {@link io.spyglass.core.run.RunningQuery}). Results wait in a queue bounded
 * by {@link EngineConfig#resultQueue()} results and {@link EngineConfig#resultQueueRecords()}
 * records: a subscriber that leaves it full is cut off (the query is stopped with {@link #error()}
 * set) so that it never stalls ingestion or other queries, or, with {@link
 * EngineConfig#resultBackPressure()}, holds up the reading of the source until it catches up.
 *
 * <p>Thread-safe: results are offered by the engine's combiner thread and taken by any thread;
 * waiting is on the handle's own monitor (a queue made at the first result, no locks or latches of
 * its own: ten thousand quiet queries hold little).
 */
public final class QueryHandle extends AbstractRunningQuery {
  private volatile QueryStats finalStats;

  private final QueryContext context;
  private final int maxResults;
  private final int maxRecords;
  private final boolean backPressure;

  // guarded by this
  private boolean backlogged;
  private String cutOffReason;

  /** Each worker's counters of the query as it handed on its last partial; made at the first. */
  private QueryStats[] atPartial;

  QueryHandle(Query query, EngineConfig config, QueryContext context, boolean backPressure) {
    super(query);
    this.context = context;
    this.maxResults = config.resultQueue();
    this.maxRecords = config.resultQueueRecords();
    this.backPressure = backPressure || config.resultBackPressure();
  }

  @Override
  protected long nanoTime() {
    return context.clock().nanos();
  }

  @Override
  protected void taken() {
    if (backlogged && queuedResults() < maxResults && queuedRecords() < maxRecords) {
      backlogged = false;
      context.backlog().change(-1);
    }
  }

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
  @Override
  public Optional<QueryStats> stats() {
    if (!isDone()) {
      QueryStats now = context.queries().stats(id());
      if (now != null) {
        return Optional.of(now);
      }
    }
    return finalStats(); // ended, possibly since the check above
  }

  /** Stops the query; it emits nothing more and its state is freed. */
  @Override
  public void kill() {
    context.combiner().kill(id());
  }

  /**
   * Ends the query now, as if its duration were over: at the next tick it emits its final result,
   * holding every record read until then, and stops.
   */
  @Override
  public void finish() {
    context.combiner().finish(id());
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
    int queued = queuedResults();
    long records = queuedRecords();
    boolean full =
        queued >= factor * maxResults
            || (queued > 0 && records + size > (long) factor * maxRecords);
    if (full) {
      cutOffReason =
          "The result subscriber fell behind by "
              + queued
              + " results ("
              + records
              + " records) and was cut off; read results as they come, or use a longer window"
              + " or a smaller LIMIT";
      return false;
    }
    enqueue(r);
    if (backPressure
        && !backlogged
        && (queuedResults() >= maxResults || queuedRecords() >= maxRecords)) {
      backlogged = true;
      context.backlog().change(1);
    }
    return true;
  }

  /** Why {@link #offer} refused a result. */
  synchronized String cutOffReason() {
    return cutOffReason;
  }

  void running() {
    markRunning();
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

  void end(String errorOrNull) {
    markDone(errorOrNull);
  }

  @Override
  protected void ending() {
    if (backlogged) {
      // nothing more comes: what waits unread must not hold up the source
      backlogged = false;
      context.backlog().change(-1);
    }
    QueryStats last = context.queries().stats(id());
    if (last != null) {
      finalStats = last;
    }
    context.queries().ended(id());
  }

  /** The engine clock, or the machine's wall clock if that fails too. */
  private long now() {
    try {
      return context.clock().millis();
    } catch (RuntimeException e) {
      return SpyglassClock.system().millis();
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
    Query query = query();
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
    enqueue(new Result(List.of(), meta));
    end(message);
  }
}
