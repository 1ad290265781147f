package io.spyglass.engine;

import io.spyglass.core.partial.Partial;
import io.spyglass.core.query.Query;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * What the {@link Combiner} is told, by the workers (partials, flushes done, a query that threw),
 * the engine (queries started, ticks), the queries' handles (kill, finish) and the barriers (looks
 * at merged state): one bounded queue, taken by the combiner thread alone.
 *
 * <p>Bounded: a sender waits while it is full, so a slow combiner holds up the workers, which hold
 * up the reader. Thread-safe.
 */
final class CombinerInbox {
  sealed interface Msg {}

  record PartialMsg(Query query, Partial partial) implements Msg {}

  record Flushed(int worker, long tickMs) implements Msg {}

  record Drained(int worker) implements Msg {}

  record Tick(boolean finishAll) implements Msg {}

  record Start(QueryHandle handle, byte[] restore) implements Msg {}

  record Added(String queryId) implements Msg {}

  record Kill(String queryId) implements Msg {}

  record Failed(String queryId, Throwable error) implements Msg {}

  record Finish(String queryId) implements Msg {}

  /**
   * Something that needs every partial read so far merged: it runs when a flush round that started
   * after it arrived completes (a checkpoint's snapshots, a look at a query's open state). A {@code
   * cut} is sent with reading paused and every batch read back in the pool: no worker holds a
   * record beyond that round, so it closes event-time windows by all the event time seen.
   */
  record AfterFlush(Consumer<Map<String, Combiner.Running>> action, boolean cut) implements Msg {}

  private final BlockingQueue<Msg> queue;
  private final AtomicBoolean tickQueued = new AtomicBoolean();
  private volatile boolean closed;

  /** Messages the inbox holds: partials of a few batches per worker, and room for commands. */
  static int capacity(int workers) {
    return Math.max(256, 64 * workers);
  }

  CombinerInbox(int workers) {
    this.queue = new ArrayBlockingQueue<>(capacity(workers));
  }

  /** A worker's partial of a query (a copy, the combiner's to keep). */
  void partial(Query q, Partial p) {
    send(new PartialMsg(q, p));
  }

  /** A worker flushed for the tick at {@code tick}. */
  void flushed(int worker, long tick) {
    send(new Flushed(worker, tick));
  }

  /** A worker processed every batch left after its source ended, flushed, and stopped. */
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
  void afterFlush(Consumer<Map<String, Combiner.Running>> action) {
    send(new AfterFlush(action, false));
  }

  /**
   * As {@link #afterFlush}, at a checkpoint's cut: sent once reading is paused and every batch read
   * is back in the pool. That round closes the event-time windows that the records read before the
   * cut close ({@link io.spyglass.core.query.QueryCombiner#advance}, not by the previous round's
   * event time), so the state saved never holds a window open that the run goes on to close before
   * reading another record: a run restored from it counts a record late exactly when this one does.
   */
  void afterCut(Consumer<Map<String, Combiner.Running>> action) {
    send(new AfterFlush(action, true));
  }

  /** A worker added the query. */
  void added(String queryId) {
    send(new Added(queryId));
  }

  /** Starts a query, empty or from a saved state. */
  void start(QueryHandle h, byte[] restore) {
    send(new Start(h, restore));
  }

  /** Stops a query at once, without a final result. */
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
      while (!queue.offer(m, 50, TimeUnit.MILLISECONDS)) {
        if (closed) {
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The next message, waiting for one (the combiner thread). */
  Msg take() throws InterruptedException {
    Msg m = queue.take();
    if (m instanceof Tick && !((Tick) m).finishAll()) {
      tickQueued.set(false);
    }
    return m;
  }

  /** The engine stops: senders no longer wait for room. */
  void close() {
    closed = true;
  }

  boolean isClosed() {
    return closed;
  }
}
