package io.spyglass.service.runtime;

import io.spyglass.core.query.QueryStats;
import io.spyglass.core.result.Result;
import io.spyglass.core.run.RunningQuery;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves every query's results from its {@link RunningQuery} to its {@link ResultListener}, in
 * order, on one thread of its own, whichever runtime runs it: a query signals it has news ({@link
 * RunningQuery#onUpdate}), so thousands of queries cost nothing while they are quiet. A listener
 * that throws stops its query alone; the others go on.
 */
final class ResultDispatcher {
  private static final Logger LOG = LoggerFactory.getLogger(ResultDispatcher.class);

  private final Map<String, Running> running = new ConcurrentHashMap<>();
  private final BlockingQueue<Running> news = new LinkedBlockingQueue<>();
  private final LongAdder delivered = new LongAdder();
  private final Thread thread;
  private final long idleMs;
  private final Runnable everyRound;
  private volatile boolean closed;

  /**
   * One query: its running query, its listener, and whether it waits in {@link #news} already
   * (itself, as an {@link AtomicBoolean}); run by its query when it has news. A standing query's
   * results may be held at a checkpoint ({@link #hold}) until its marker is known ({@link #mark}):
   * the marker is then delivered between the results before the cut and those after it.
   *
   * <p>Ten thousand idle queries each hold one: its state is guarded by its own monitor (no lock
   * object of its own), and its held results and markers are made at the first (most queries never
   * have any).
   */
  @SuppressWarnings("serial") // never serialized
  final class Running extends AtomicBoolean implements Runnable {
    final String id;
    final RunningQuery query;
    final ResultListener listener;

    /** When it was submitted, in milliseconds of its runtime's monotonic clock (0: not told). */
    final long submittedMs;

    /** Its listener heard its end; touched by the dispatching thread (and by close, after it). */
    boolean ended;

    // guarded by this
    /** Checkpoints asked for whose marker is not known yet: its results wait meanwhile. */
    private int holds;

    /** Results taken from the query while held, not delivered yet; made at the first. */
    private ArrayDeque<Result> held;

    /**
     * Markers to deliver, each once its listener got the results before its cut; made at the first.
     */
    private ArrayDeque<Mark> marks;

    /** Results handed to the listener. */
    private long delivered;

    /** Whether the last {@link #next} found nothing because the query must wait, not none. */
    private boolean waiting;

    Running(String id, RunningQuery query, ResultListener listener, long submittedMs, int holds) {
      this.id = id;
      this.query = query;
      this.listener = listener;
      this.submittedMs = submittedMs;
      this.holds = holds;
    }

    @Override
    public void run() {
      signal(this);
    }

    /**
     * What to hand the listener next: a marker whose results before the cut it got, a result, or
     * null when there is none now or the query must wait (held, or its listener not ready).
     */
    private Object next() throws InterruptedException {
      synchronized (this) {
        waiting = false;
        Mark m = marks == null ? null : marks.peek();
        if (m != null && m.after() <= delivered) {
          return marks.poll().marker();
        }
        if (holds > 0) {
          // taken, not delivered: the query's queue stays short (its source may wait on it), and
          // nothing after the cut reaches the listener before the marker
          Result r;
          while ((r = query.poll(0, TimeUnit.MILLISECONDS)) != null) {
            if (held == null) {
              held = new ArrayDeque<>();
            }
            held.add(r);
          }
          waiting = true;
          return null;
        }
        if (!listener.ready()) {
          waiting = true;
          return null;
        }
        Result r = held == null ? null : held.poll();
        if (r == null) {
          r = query.poll(0, TimeUnit.MILLISECONDS);
        }
        if (r != null) {
          delivered++;
        }
        return r;
      }
    }

    /** Whether every result was delivered: nothing held, waited for or left in the query. */
    private boolean drained() {
      synchronized (this) {
        return !waiting && holds == 0 && (held == null || held.isEmpty());
      }
    }

    private void hold() {
      synchronized (this) {
        holds++;
      }
    }

    /** A held checkpoint's marker is known (null: the query was not saved); its results go on. */
    private void release(Mark m) {
      synchronized (this) {
        holds = Math.max(0, holds - 1);
        if (m != null) {
          if (marks == null) {
            marks = new ArrayDeque<>(1);
          }
          marks.add(m);
        }
      }
      signal(this);
    }

    /** Forgets every hold: nothing will release them (the dispatcher closes). */
    private void releaseAll() {
      synchronized (this) {
        holds = 0;
      }
    }
  }

  /** A marker, delivered once its listener got {@code after} results. */
  private record Mark(long after, CheckpointMarker marker) {}

  /**
   * A dispatcher; its thread runs from {@link #start}.
   *
   * @param idleMs how long it waits for news before it runs {@code everyRound} anyway
   * @param everyRound runs on the dispatching thread after each piece of news or wait (e.g. to end
   *     queries that never started); null for nothing
   */
  ResultDispatcher(String threadName, long idleMs, Runnable everyRound) {
    this.idleMs = idleMs;
    this.everyRound = everyRound;
    this.thread = new Thread(this::dispatch, threadName);
    thread.setDaemon(true);
  }

  /** Starts the dispatching thread. */
  ResultDispatcher start() {
    thread.start();
    return this;
  }

  /** Delivers {@code query}'s results to {@code listener} from now on, those queued already too. */
  void add(String id, RunningQuery query, ResultListener listener, long submittedMs) {
    add(id, query, listener, submittedMs, false);
  }

  /**
   * As {@link #add(String, RunningQuery, ResultListener, long)}; {@code held}: its results wait for
   * a checkpoint's marker already ({@link #hold}), as for a query started at a cut.
   */
  void add(String id, RunningQuery query, ResultListener listener, long submittedMs, boolean held) {
    Running r = new Running(id, query, listener, submittedMs, held ? 1 : 0);
    running.put(id, r);
    query.onUpdate(r);
    signal(r); // results queued before the listener was set
  }

  /**
   * Holds a query's results from now on until a checkpoint's marker is known ({@link #mark}) or the
   * checkpoint fails ({@link #release}): asked before the checkpoint is, so that no result after
   * its cut reaches the listener before the marker. False when the query is not running here.
   */
  boolean hold(String id) {
    Running r = running.get(id);
    if (r == null) {
      return false;
    }
    r.hold();
    return true;
  }

  /**
   * A held query's marker: delivered once its listener got the {@code after} results from before
   * the cut, before any later one; its results go on.
   */
  void mark(String id, long after, CheckpointMarker marker) {
    Running r = running.get(id);
    if (r != null) {
      r.release(new Mark(after, marker));
    }
  }

  /** A held query's checkpoint did not save it (it ended, or the checkpoint failed): it goes on. */
  void release(String id) {
    Running r = running.get(id);
    if (r != null) {
      r.release(null);
    }
  }

  /** Delivers again to a listener that was not ready. */
  void wake(String id) {
    Running r = running.get(id);
    if (r != null) {
      signal(r);
    }
  }

  /** The query of {@code id} whose end its listener has not heard yet; null when none. */
  Running get(String id) {
    return running.get(id);
  }

  /** The queries whose end their listeners have not heard yet. */
  Collection<Running> running() {
    return running.values();
  }

  /** Results handed to listeners since the start. */
  long delivered() {
    return delivered.sum();
  }

  /** Whether the dispatching thread lives (it dies only of a failure of its own, or on close). */
  boolean isAlive() {
    return thread.isAlive();
  }

  private void signal(Running r) {
    if (r.compareAndSet(false, true)) {
      news.add(r);
    }
  }

  private void dispatch() {
    while (!closed) {
      try {
        Running r = news.poll(idleMs, TimeUnit.MILLISECONDS);
        if (r != null) {
          r.set(false); // news arriving from now on queues it again
          deliverOrFail(r);
        }
        if (everyRound != null) {
          everyRound.run();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        LOG.error("results dispatch failed; going on", e);
      }
    }
  }

  /** Delivers; when the listener throws, the query is stopped and ends with the error. */
  private void deliverOrFail(Running r) throws InterruptedException {
    try {
      deliver(r);
    } catch (InterruptedException e) {
      throw e;
    } catch (Throwable t) { // one query's failure must not stop every query's results
      failed(r, t);
    }
  }

  private void deliver(Running r) throws InterruptedException {
    if (r.ended) {
      return;
    }
    RunningQuery q = r.query;
    // read before the results are taken: every result queued before its end is taken below
    boolean done = q.isDone();
    Object next;
    while ((next = r.next()) != null) {
      if (next instanceof CheckpointMarker m) {
        r.listener.onCheckpoint(m);
      } else {
        delivered.increment();
        r.listener.onResult((Result) next);
      }
    }
    if (done && r.drained()) {
      end(r, q.error(), q.stats().orElse(null));
    }
  }

  /** Tells a query's listener of its end (once), here and now, and forgets the query. */
  void end(Running r, String error, QueryStats last) {
    if (r.ended) {
      return;
    }
    r.ended = true;
    running.remove(r.id, r);
    r.listener.onEnd(error, last);
  }

  /**
   * A query's listener threw: the query is stopped in its runtime and ends with the error; the
   * other queries go on.
   */
  private void failed(Running r, Throwable t) {
    LOG.error("delivering the results of {} failed; the query is stopped", r.id, t);
    if (r.ended) {
      return; // it failed in its end: nothing more to tell
    }
    r.ended = true;
    running.remove(r.id, r);
    try {
      r.query.kill();
    } catch (RuntimeException e) {
      LOG.warn("could not stop {} in its runtime: {}", r.id, e.toString());
    }
    try {
      r.listener.onEnd(ResultListener.failure(t), null);
    } catch (Throwable again) {
      LOG.error("result listener of {} failed at its end", r.id, again);
    }
  }

  /**
   * Stops the dispatching thread, then delivers, on the caller's thread, what each query still has
   * (its end, when its runtime ended it).
   */
  void close() {
    closed = true;
    thread.interrupt();
    try {
      thread.join(2_000);
      for (Running r : running.values()) {
        r.releaseAll(); // no checkpoint completes any more
        deliverOrFail(r);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
