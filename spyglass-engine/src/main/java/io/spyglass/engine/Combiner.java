package io.spyglass.engine;

import io.spyglass.core.partial.Partial;
import io.spyglass.core.query.Query;
import io.spyglass.core.query.QueryCombiner;
import io.spyglass.core.query.ResultSink;
import io.spyglass.core.result.Meta;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The combiner thread: owns every query's {@link QueryCombiner}, merges the partials workers send,
 * and runs ticks. A tick asks every worker to flush; when all have answered, windows and durations
 * are advanced to the tick's time, so a window holds every record read before it closed.
 */
final class Combiner implements Runnable {
  private sealed interface Msg {}

  private record PartialMsg(Query query, Partial partial) implements Msg {}

  private record Flushed(int worker, long tickMs) implements Msg {}

  private record Drained(int worker) implements Msg {}

  private record Tick(boolean finishAll) implements Msg {}

  private record Start(QueryHandle handle) implements Msg {}

  private record Added(String queryId) implements Msg {}

  private record Kill(String queryId) implements Msg {}

  private record Failed(String queryId, Throwable error) implements Msg {}

  private record Finish(String queryId) implements Msg {}

  private record Stop() implements Msg {}

  private static final class Running {
    final QueryHandle handle;
    QueryCombiner combiner;
    int workersWithIt;
    boolean cutOff;
    String fatalError;

    Running(QueryHandle handle) {
      this.handle = handle;
    }
  }

  private final Engine engine;
  private final BlockingQueue<Msg> inbox = new LinkedBlockingQueue<>();
  private final Map<String, Running> running = new LinkedHashMap<>();
  private final int workers;
  private boolean tickInFlight;
  private boolean finishAfterTick;
  private final Set<String> finishOneAfterTick = new HashSet<>();
  private int flushedCount;
  private int drainedCount;
  private long tickMs;

  Combiner(Engine engine, int workers) {
    this.engine = engine;
    this.workers = workers;
  }

  void partial(Query q, Partial p) {
    inbox.add(new PartialMsg(q, p));
  }

  void flushed(int worker, long tick) {
    inbox.add(new Flushed(worker, tick));
  }

  void drained(int worker) {
    inbox.add(new Drained(worker));
  }

  void tick(boolean finishAll) {
    inbox.add(new Tick(finishAll));
  }

  void added(String queryId) {
    inbox.add(new Added(queryId));
  }

  void start(QueryHandle h) {
    inbox.add(new Start(h));
  }

  void kill(String id) {
    inbox.add(new Kill(id));
  }

  /** A query threw on a worker, which dropped it: end it with the error. */
  void failed(String queryId, Throwable error) {
    inbox.add(new Failed(queryId, error));
  }

  /** Finishes one query at the next tick (its final result holds every record read till then). */
  void finish(String id) {
    inbox.add(new Finish(id));
    inbox.add(new Tick(false));
  }

  void stop() {
    inbox.add(new Stop());
  }

  int running() {
    return running.size();
  }

  @Override
  public void run() {
    try {
      while (true) {
        Msg m = inbox.take();
        if (m instanceof Stop) {
          for (Running r : running.values()) {
            r.handle.end("The engine stopped before the query finished");
          }
          running.clear();
          return;
        }
        handle(m);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
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
      finishAfterTick |= ((Tick) m).finishAll();
      if (!tickInFlight) {
        tickInFlight = true;
        flushedCount = 0;
        tickMs = now;
        engine.broadcast(new Worker.Flush(now));
      }
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
      ResultSink sink =
          (query, result) -> {
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
      r.combiner =
          new QueryCombiner(h.query(), engine.config().limits(), sink, engine.config().clock());
      running.put(h.id(), r);
      engine.broadcast(new Worker.Add(h.query()));
    } else if (m instanceof Added) {
      Running r = running.get(((Added) m).queryId());
      if (r != null && ++r.workersWithIt == workers) {
        r.handle.running();
      }
    } else if (m instanceof Finish) {
      if (running.containsKey(((Finish) m).queryId())) {
        finishOneAfterTick.add(((Finish) m).queryId());
      }
    } else if (m instanceof Kill) {
      Running r = running.remove(((Kill) m).queryId());
      if (r != null) {
        engine.broadcast(new Worker.Remove(r.handle.id()));
        r.handle.end(null);
      }
    }
  }

  /** Ends and removes a query that finished or whose subscriber fell behind. */
  private void settle(Running r) {
    if (r.cutOff) {
      running.remove(r.handle.id());
      engine.broadcast(new Worker.Remove(r.handle.id()));
      r.handle.end(
          "The result subscriber fell behind by "
              + engine.config().resultQueue()
              + " results and was cut off; read results as they come or use a longer window");
    } else if (r.combiner.isDone()) {
      running.remove(r.handle.id());
      engine.broadcast(new Worker.Remove(r.handle.id()));
      r.handle.end(r.fatalError);
    }
  }
}
