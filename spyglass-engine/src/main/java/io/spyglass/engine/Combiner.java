package io.spyglass.engine;

import io.spyglass.core.plan.Window;
import io.spyglass.core.query.Query;
import io.spyglass.core.query.QueryCombiner;
import io.spyglass.core.query.ResultSink;
import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import io.spyglass.engine.CombinerInbox.Added;
import io.spyglass.engine.CombinerInbox.AfterFlush;
import io.spyglass.engine.CombinerInbox.Drained;
import io.spyglass.engine.CombinerInbox.Failed;
import io.spyglass.engine.CombinerInbox.Finish;
import io.spyglass.engine.CombinerInbox.Flushed;
import io.spyglass.engine.CombinerInbox.Kill;
import io.spyglass.engine.CombinerInbox.Msg;
import io.spyglass.engine.CombinerInbox.PartialMsg;
import io.spyglass.engine.CombinerInbox.Start;
import io.spyglass.engine.CombinerInbox.Tick;
import io.spyglass.sources.BadInput;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The combiner thread: owns every query's {@link QueryCombiner}, merges the partials workers send,
 * and runs ticks. A tick asks every worker to flush; when all have answered, windows and durations
 * are advanced to the tick's time, so a window holds every record read before it closed. A worker
 * that took a batch just after flushing hands it over a round later than one that took the next
 * batch before flushing: event-time windows close by the event time seen as of the previous round
 * ({@link QueryCombiner#advanceRound}), which every batch read before has reached by then; a
 * checkpoint's round, with every batch read back in the pool, closes them by all the event time
 * seen.
 *
 * <p>Its {@link CombinerInbox inbox} is bounded: workers wait when it is full, so a slow combiner
 * holds up the workers, which hold up the reader. The combiner itself never waits for anything but
 * its inbox: it hands commands to workers through their queues (bounded by the number of queries,
 * see {@link Worker#commandCapacity}) and results to subscribers without blocking.
 *
 * <p>It is given what it uses, not the engine: its inbox, the workers, the running queries, the
 * engine's counters, what became of the source, and what to do when the source drained.
 */
final class Combiner implements Runnable {
  /**
   * One running query in the combiner, and the sink of its combiner's results (itself: one object
   * less for each of ten thousand idle queries).
   */
  final class Running implements ResultSink {
    final QueryHandle handle;

    /**
     * Its combiner: made at the start for a query with windows or restored state; for another, at
     * the first partial, look or end ({@link #combiner()}): until then it has nothing to combine
     * and nothing to say before its end (152 bytes less, the combiner and its panes, for each of
     * ten thousand idle queries).
     */
    private QueryCombiner combiner;

    int workersWithIt;
    boolean cutOff;
    String fatalError;

    /** The engine's bad input when the query's previous result was emitted (or it started). */
    BadInput.Snapshot badInputSeen;

    Running(QueryHandle handle) {
      this.handle = handle;
    }

    /** Its combiner, made now if it was not yet. */
    QueryCombiner combiner() {
      if (combiner == null) {
        Query q = handle.query();
        combiner = new QueryCombiner(q, q.limitsOr(config.limits()), this, config.clock());
      }
      return combiner;
    }

    /**
     * Whether its combiner must hear of time {@code atMs}: it has one, or its query ends by then (a
     * query without a combiner has no window to close before its end).
     */
    boolean dueBy(long atMs) {
      Query q = handle.query();
      return combiner != null || atMs >= q.endTimeMs(q.limitsOr(config.limits()));
    }

    /** Whether its combiner made its final result. */
    boolean isDone() {
      return combiner != null && combiner.isDone();
    }

    @Override
    public void emit(Query query, Result result) {
      result = withSourceNews(this, result);
      if (!cutOff && !handle.offer(result)) {
        cutOff = true;
      }
      for (Meta.QueryError e : result.meta().errors()) {
        if (e.fatal() && fatalError == null) {
          fatalError = e.message() + ". " + e.resolution();
        }
      }
      stats.emitted();
    }
  }

  /**
   * What the combiner calls when every worker drained after its source ended, and every query had
   * its final result: the engine stops.
   */
  @FunctionalInterface
  interface WhenDrained {
    void sourceDrained();
  }

  private final EngineConfig config;
  private final CombinerInbox inbox;
  private final Workers workerCommands;
  private final RunningQueries queries;
  private final EngineStats stats;
  private final SourceStatus source;
  private final WhenDrained whenDrained;
  private volatile Thread thread;
  private final Map<String, Running> running = new LinkedHashMap<>();
  private final int workers;
  private boolean tickInFlight;
  private boolean finishAfterTick;
  private final Set<String> finishOneAfterTick = new HashSet<>();

  /**
   * Finishes asked for while a round was in flight: that round's flushes were sent before them, so
   * what the workers processed since would be missing from the final results. They wait for the
   * next round, started as soon as the one in flight ends.
   */
  private boolean finishAllNextRound;

  private final Set<String> finishNextRound = new HashSet<>();
  private int flushedCount;

  /** Waiting for the next flush round, and covered by the round in flight. */
  private final java.util.List<AfterFlush> afterNextRound = new ArrayList<>();

  private final java.util.List<AfterFlush> afterThisRound = new ArrayList<>();
  private int drainedCount;
  private long tickMs;

  /**
   * @param inbox what it is told, taken on its thread alone
   * @param workers the workers it sends commands to (add, remove a query, flush)
   * @param queries the running queries, whose places it releases when a query cannot start
   * @param stats the engine's counters: results emitted, the input skipped for each result's news
   * @param source what became of the source, for each result's news and the final results
   * @param whenDrained called once every worker drained after the source ended
   */
  Combiner(
      EngineConfig config,
      CombinerInbox inbox,
      Workers workers,
      RunningQueries queries,
      EngineStats stats,
      SourceStatus source,
      WhenDrained whenDrained) {
    this.config = config;
    this.inbox = inbox;
    this.workerCommands = workers;
    this.workers = workers.count();
    this.queries = queries;
    this.stats = stats;
    this.source = source;
    this.whenDrained = whenDrained;
  }

  /**
   * A running query's combiner and the results offered so far, for {@link
   * CombinerInbox#afterFlush}.
   */
  static QueryCombiner combiner(Running r) {
    return r.combiner();
  }

  static QueryHandle handle(Running r) {
    return r.handle;
  }

  /** Ends every running query (without a final result) and the combiner thread. */
  void stop() {
    inbox.close();
    Thread t = thread;
    if (t != null) {
      t.interrupt();
    }
  }

  @Override
  public void run() {
    thread = Thread.currentThread();
    // what this throws is the engine's failure: its handler ends the queries with the error
    while (!inbox.isClosed()) {
      Msg m;
      try {
        m = inbox.take();
      } catch (InterruptedException e) {
        continue; // stopping
      }
      handle(m);
    }
    for (Running r : running.values()) {
      r.handle.end("The engine stopped before the query finished");
    }
    running.clear();
  }

  private void handle(Msg m) {
    long now = config.clock().getAsLong();
    if (m instanceof PartialMsg) {
      PartialMsg pm = (PartialMsg) m;
      Running r = running.get(pm.query().id());
      if (r != null) {
        r.combiner().accept(pm.partial(), now);
        settle(r);
      }
    } else if (m instanceof Tick) {
      if (((Tick) m).finishAll()) {
        if (tickInFlight) {
          finishAllNextRound = true;
        } else {
          finishAfterTick = true;
        }
      }
      startRound(now);
    } else if (m instanceof AfterFlush) {
      afterNextRound.add((AfterFlush) m);
      startRound(now);
    } else if (m instanceof Flushed) {
      if (tickInFlight && ++flushedCount == workers) {
        tickInFlight = false;
        long at = Math.max(tickMs, now);
        boolean finish = finishAfterTick;
        finishAfterTick = false;
        boolean cut = afterThisRound.stream().anyMatch(AfterFlush::cut);
        for (Running r : new ArrayList<>(running.values())) {
          if (finish || finishOneAfterTick.remove(r.handle.id())) {
            r.combiner().finish(at);
          } else if (!r.dueBy(at)) {
            continue; // nothing to tell a query that has had nothing to combine
          } else if (cut) {
            r.combiner().advance(at);
          } else {
            r.combiner().advanceRound(at);
          }
          settle(r);
        }
        finishOneAfterTick.clear(); // ids left over are of queries that ended meanwhile
        for (AfterFlush a : afterThisRound) {
          a.action().accept(running);
        }
        afterThisRound.clear();
        finishAfterTick = finishAllNextRound;
        finishAllNextRound = false;
        finishOneAfterTick.addAll(finishNextRound);
        finishNextRound.clear();
        if (!afterNextRound.isEmpty() || finishAfterTick || !finishOneAfterTick.isEmpty()) {
          startRound(now);
        }
      }
    } else if (m instanceof Drained) {
      if (++drainedCount == workers) {
        String sourceError = source.error();
        for (Running r : new ArrayList<>(running.values())) {
          if (sourceError == null) {
            r.combiner().finish(now);
          } else {
            r.combiner()
                .fail(
                    "The source failed: " + sourceError,
                    "This result holds the records read before the failure; fix or replace the input"
                        + " and run the query again",
                    now);
          }
          settle(r);
        }
        whenDrained.sourceDrained();
      }
    } else if (m instanceof Failed) {
      Failed f = (Failed) m;
      Running r = running.get(f.queryId());
      if (r != null) {
        r.combiner().fail(f.error(), now);
        settle(r);
      }
    } else if (m instanceof Start) {
      QueryHandle h = ((Start) m).handle();
      Running r = new Running(h);
      r.badInputSeen = stats.badInput();
      ResultSink sink = r;
      byte[] restore = ((Start) m).restore();
      if (restore == null) {
        if (!(h.query().plan().window() instanceof Window.None)) {
          r.combiner(); // its windows close on time, records or none
        }
      } else {
        try {
          r.combiner =
              QueryCombiner.restore(
                  h.query(), h.query().limitsOr(config.limits()), sink, config.clock(), restore);
        } catch (RuntimeException e) {
          h.end("The query's saved state cannot be restored: " + e.getMessage());
          queries.released();
          return;
        }
      }
      running.put(h.id(), r);
      workerCommands.broadcast(new Worker.Add(h.query()));
    } else if (m instanceof Added) {
      Running r = running.get(((Added) m).queryId());
      if (r != null && ++r.workersWithIt == workers) {
        r.handle.running();
      }
    } else if (m instanceof Finish) {
      if (running.containsKey(((Finish) m).queryId())) {
        (tickInFlight ? finishNextRound : finishOneAfterTick).add(((Finish) m).queryId());
      }
    } else if (m instanceof Kill) {
      Running r = running.get(((Kill) m).queryId());
      if (r != null) {
        remove(r);
        r.handle.end(null);
      }
    }
  }

  /**
   * Starts a flush round unless one is in flight; what waits for the next round is covered by this
   * one (it arrived before the round's flushes were sent).
   */
  private void startRound(long now) {
    if (tickInFlight) {
      return;
    }
    tickInFlight = true;
    flushedCount = 0;
    tickMs = now;
    afterThisRound.addAll(afterNextRound);
    afterNextRound.clear();
    workerCommands.broadcast(new Worker.Flush(now));
  }

  /**
   * The result with what the source did meanwhile: the input skipped since the query's previous
   * result, and what keeps the source from reading now.
   */
  private Result withSourceNews(Running r, Result result) {
    Meta meta = result.meta();
    BadInput.Snapshot now = stats.badInput();
    if (now.total() != r.badInputSeen.total()) {
      meta = meta.withBadInput(now.since(r.badInputSeen));
      r.badInputSeen = now;
    }
    String problem = source.problem();
    if (problem != null) {
      meta =
          meta.withError(
              new Meta.QueryError(
                  problem,
                  "The query goes on, without what the source cannot give meanwhile; reading"
                      + " resumes when the source is back",
                  false));
    }
    return meta == result.meta() ? result : new Result(result.records(), meta);
  }

  /** Ends and removes a query that finished or whose subscriber fell behind. */
  private void settle(Running r) {
    if (r.cutOff) {
      remove(r);
      r.handle.end(r.handle.cutOffReason());
    } else if (r.isDone()) {
      remove(r);
      r.handle.end(r.fatalError);
    }
  }

  /** Drops a query here and on every worker; it counts as running until all have dropped it. */
  private void remove(Running r) {
    running.remove(r.handle.id());
    workerCommands.broadcast(new Worker.Remove(r.handle.id(), new AtomicInteger(workers)));
  }
}
