package io.spyglass.engine;

import io.spyglass.core.partial.Partial;
import io.spyglass.core.query.Query;
import io.spyglass.core.query.QueryCombiner;
import io.spyglass.core.query.ResultSink;
import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import io.spyglass.sources.BadInput;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The combiner thread: owns every query's {@link QueryCombiner}, merges the partials workers send,
 * and runs ticks. A tick asks every worker to flush; when all have answered, windows and durations
 * are advanced to the tick's time, so a window holds every record read before it closed.
 *
 * <p>Its inbox is bounded: workers wait when it is full, so a slow combiner holds up the workers,
 * which hold up the reader. The combiner itself never waits for anything but its inbox: it hands
 * commands to workers through their queues (bounded by the number of queries, see {@link
 * Worker#commandCapacity}) and results to subscribers without blocking.
 */
final class Combiner implements Runnable {
  private sealed interface Msg {}

  private record PartialMsg(Query query, Partial partial) implements Msg {}

  private record Flushed(int worker, long tickMs) implements Msg {}

  private record Drained(int worker) implements Msg {}

  private record Tick(boolean finishAll) implements Msg {}

  private record Start(QueryHandle handle, byte[] restore) implements Msg {}

  private record Added(String queryId) implements Msg {}

  private record Kill(String queryId) implements Msg {}

  private record Failed(String queryId, Throwable error) implements Msg {}

  private record Finish(String queryId) implements Msg {}

  /**
   * Something that needs every partial read so far merged: it runs when a flush round that started
   * after it arrived completes (a checkpoint's snapshots, a look at a query's open state).
   */
  private record AfterFlush(java.util.function.Consumer<Map<String, Running>> action)
      implements Msg {}

  static final class Running {
    final QueryHandle handle;
    QueryCombiner combiner;
    int workersWithIt;
    boolean cutOff;
    String fatalError;

    /** The engine's bad input when the query's previous result was emitted (or it started). */
    BadInput.Snapshot badInputSeen;

    Running(QueryHandle handle) {
      this.handle = handle;
    }
  }

  private final Engine engine;
  private final BlockingQueue<Msg> inbox;
  private final AtomicBoolean tickQueued = new AtomicBoolean();
  private volatile boolean stopping;
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

  /** Messages the inbox holds: partials of a few batches per worker, and room for commands. */
  static int inboxCapacity(int workers) {
    return Math.max(256, 64 * workers);
  }

  Combiner(Engine engine, int workers) {
    this.engine = engine;
    this.workers = workers;
    this.inbox = new ArrayBlockingQueue<>(inboxCapacity(workers));
  }

  void partial(Query q, Partial p) {
    send(new PartialMsg(q, p));
  }

  void flushed(int worker, long tick) {
    send(new Flushed(worker, tick));
  }

  void drained(int worker) {
    send(new Drained(worker));
  }

  /** Asks for a tick; a tick already waiting in the inbox serves (unless this one finishes all). */
  void tick(boolean finishAll) {
    if (finishAll) {
      send(new Tick(true));
    } else if (tickQueued.compareAndSet(false, true)) {
      send(new Tick(false));
    }
  }

  /**
   * Runs {@code action} on the combiner thread once every partial of the records processed before
   * now is merged (after a flush round of every worker), with the running queries by id. The action
   * must not keep the map or the queries' combiners beyond the call.
   */
  void afterFlush(java.util.function.Consumer<Map<String, Running>> action) {
    send(new AfterFlush(action));
  }

  /** A running query's combiner and the results offered so far, for {@link #afterFlush}. */
  static QueryCombiner combiner(Running r) {
    return r.combiner;
  }

  static QueryHandle handle(Running r) {
    return r.handle;
  }

  void added(String queryId) {
    send(new Added(queryId));
  }

  void start(QueryHandle h, byte[] restore) {
    send(new Start(h, restore));
  }

  void kill(String id) {
    send(new Kill(id));
  }

  /** A query threw on a worker, which dropped it: end it with the error. */
  void failed(String queryId, Throwable error) {
    send(new Failed(queryId, error));
  }

  /** Finishes one query at the next tick (its final result holds every record read till then). */
  void finish(String id) {
    send(new Finish(id));
    send(new Tick(false));
  }

  /**
   * Puts a message in the inbox, waiting while it is full. Dropped when the engine stops meanwhile
   * or the caller is interrupted (engine threads are interrupted only when the engine stops).
   */
  private void send(Msg m) {
    try {
      while (!inbox.offer(m, 50, TimeUnit.MILLISECONDS)) {
        if (stopping) {
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Ends every running query (without a final result) and the combiner thread. */
  void stop() {
    stopping = true;
    Thread t = thread;
    if (t != null) {
      t.interrupt();
    }
  }

  int running() {
    return running.size();
  }

  @Override
  public void run() {
    thread = Thread.currentThread();
    // what this throws is the engine's failure: its handler ends the queries with the error
    while (!stopping) {
      Msg m;
      try {
        m = inbox.take();
      } catch (InterruptedException e) {
        continue; // stopping
      }
      if (m instanceof Tick && !((Tick) m).finishAll()) {
        tickQueued.set(false);
      }
      handle(m);
    }
    for (Running r : running.values()) {
      r.handle.end("The engine stopped before the query finished");
    }
    running.clear();
  }

  private void handle(Msg m) {
    long now = engine.config().clock().getAsLong();
    if (m instanceof PartialMsg) {
      PartialMsg pm = (PartialMsg) m;
      Running r = running.get(pm.query().id());
      if (r != null) {
        r.combiner.accept(pm.partial(), now);
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
        for (Running r : new ArrayList<>(running.values())) {
          if (finish || finishOneAfterTick.remove(r.handle.id())) {
            r.combiner.finish(at);
          } else {
            r.combiner.advance(at);
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
        String sourceError = engine.sourceError();
        for (Running r : new ArrayList<>(running.values())) {
          if (sourceError == null) {
            r.combiner.finish(now);
          } else {
            r.combiner.fail(
                "The source failed: " + sourceError,
                "This result holds the records read before the failure; fix or replace the input"
                    + " and run the query again",
                now);
          }
          settle(r);
        }
        engine.sourceDrained();
      }
    } else if (m instanceof Failed) {
      Failed f = (Failed) m;
      Running r = running.get(f.queryId());
      if (r != null) {
        r.combiner.fail(f.error(), now);
        settle(r);
      }
    } else if (m instanceof Start) {
      QueryHandle h = ((Start) m).handle();
      Running r = new Running(h);
      r.badInputSeen = engine.badInput();
      ResultSink sink =
          (query, result) -> {
            result = withSourceNews(r, result);
            if (!r.cutOff && !h.offer(result)) {
              r.cutOff = true;
            }
            for (Meta.QueryError e : result.meta().errors()) {
              if (e.fatal() && r.fatalError == null) {
                r.fatalError = e.message() + ". " + e.resolution();
              }
            }
            engine.emitted();
          };
      byte[] restore = ((Start) m).restore();
      if (restore == null) {
        r.combiner =
            new QueryCombiner(
                h.query(),
                h.query().limitsOr(engine.config().limits()),
                sink,
                engine.config().clock());
      } else {
        try {
          r.combiner =
              QueryCombiner.restore(
                  h.query(),
                  h.query().limitsOr(engine.config().limits()),
                  sink,
                  engine.config().clock(),
                  restore);
        } catch (RuntimeException e) {
          h.end("The query's saved state cannot be restored: " + e.getMessage());
          engine.released();
          return;
        }
      }
      running.put(h.id(), r);
      engine.broadcast(new Worker.Add(h.query()));
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
    engine.broadcast(new Worker.Flush(now));
  }

  /**
   * The result with what the source did meanwhile: the input skipped since the query's previous
   * result, and what keeps the source from reading now.
   */
  private Result withSourceNews(Running r, Result result) {
    Meta meta = result.meta();
    BadInput.Snapshot now = engine.badInput();
    if (now.total() != r.badInputSeen.total()) {
      meta = meta.withBadInput(now.since(r.badInputSeen));
      r.badInputSeen = now;
    }
    String problem = engine.sourceProblem();
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
    } else if (r.combiner.isDone()) {
      remove(r);
      r.handle.end(r.fatalError);
    }
  }

  /** Drops a query here and on every worker; it counts as running until all have dropped it. */
  private void remove(Running r) {
    running.remove(r.handle.id());
    engine.broadcast(new Worker.Remove(r.handle.id(), new AtomicInteger(workers)));
  }
}
