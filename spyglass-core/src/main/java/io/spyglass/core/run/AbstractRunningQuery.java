package io.spyglass.core.run;

import io.spyglass.core.query.Query;
import io.spyglass.core.result.Result;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * What a {@link RunningQuery} is on every runtime: a queue of unread results (made at the first, so
 * that ten thousand quiet queries hold little), its end and its error, and waiting for them on the
 * query's own monitor (no locks or latches of its own). A runtime adds how results arrive (its
 * bounds, what it drops) and how a query is stopped.
 *
 * <p>Thread-safe: a runtime thread offers results with {@link #enqueue} and ends the query with
 * {@link #markDone}, under the query's monitor; any thread takes them.
 */
public abstract class AbstractRunningQuery implements RunningQuery {
  private final Query query;

  // unread results (made at the first) and their records; guarded by this
  private ArrayDeque<Result> results;
  private int queuedResults;
  private long queuedRecords;

  // set once, under this, then waited for on this
  private volatile boolean done;
  private volatile boolean running;

  private volatile String error;
  private volatile long emitted;
  private volatile Runnable onUpdate;

  protected AbstractRunningQuery(Query query) {
    this.query = query;
  }

  /**
   * The runtime's monotonic clock in nanoseconds ({@code System.nanoTime()}), which the waits are
   * timed by: the core reads no clock itself.
   */
  protected abstract long nanoTime();

  @Override
  public final String id() {
    return query.id();
  }

  @Override
  public final Query query() {
    return query;
  }

  @Override
  public final synchronized Result poll(long timeout, TimeUnit unit) throws InterruptedException {
    long deadline = deadline(timeout, unit);
    while (true) {
      Result r = results == null ? null : results.poll();
      if (r != null) {
        queuedResults--;
        queuedRecords -= r.records().size();
        taken();
        return r;
      }
      if (done) {
        return null;
      }
      if (!waitUntil(deadline)) {
        return null;
      }
    }
  }

  /** The {@link #nanoTime()} when {@code timeout} from now passes, at most {@code MAX_VALUE}. */
  private long deadline(long timeout, TimeUnit unit) {
    long now = nanoTime();
    long wait = unit.toNanos(Math.max(0, timeout));
    return wait > Long.MAX_VALUE - now ? Long.MAX_VALUE : now + wait;
  }

  /** Waits on this (held) until notified or {@code deadline}; false once it has passed. */
  private boolean waitUntil(long deadlineNanos) throws InterruptedException {
    long left = deadlineNanos - nanoTime();
    if (left <= 0) {
      return false;
    }
    TimeUnit.NANOSECONDS.timedWait(this, left);
    return true;
  }

  /** Called under the monitor after a reader took a result: e.g. to let a held-up source go on. */
  protected void taken() {}

  @Override
  public final boolean isDone() {
    return done;
  }

  @Override
  public final synchronized boolean awaitDone(long timeout, TimeUnit unit)
      throws InterruptedException {
    long deadline = deadline(timeout, unit);
    while (!done) {
      if (!waitUntil(deadline)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public final synchronized boolean awaitRunning(long timeout, TimeUnit unit)
      throws InterruptedException {
    long deadline = deadline(timeout, unit);
    while (!running && !done) {
      if (!waitUntil(deadline)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public final String error() {
    return error;
  }

  @Override
  public final long emitted() {
    return emitted;
  }

  @Override
  public final void onUpdate(Runnable listener) {
    this.onUpdate = listener;
  }

  /** Runs the {@link #onUpdate} listener, if any. */
  protected final void notifyUpdate() {
    Runnable l = onUpdate;
    if (l != null) {
      l.run();
    }
  }

  /** Unread results. */
  protected final synchronized int queuedResults() {
    return queuedResults;
  }

  /** The records of the unread results. */
  protected final synchronized long queuedRecords() {
    return queuedRecords;
  }

  /**
   * Queues a result for the reader, counts it as emitted, and wakes the readers and the listener.
   * The caller decides first whether it fits.
   */
  protected final synchronized void enqueue(Result r) {
    if (results == null) {
      results = new ArrayDeque<>(4);
    }
    results.add(r);
    queuedResults++;
    queuedRecords += r.records().size();
    emitted++;
    notifyAll();
    notifyUpdate();
  }

  /** The query runs everywhere: wakes {@link #awaitRunning}. */
  protected final synchronized void markRunning() {
    running = true;
    notifyAll();
  }

  /**
   * Ends the query, with {@code errorOrNull} as its error unless it has one: {@link #ending} runs
   * first, then readers and the listener are woken. Nothing happens when it has ended already.
   *
   * @return whether it ended now
   */
  protected final synchronized boolean markDone(String errorOrNull) {
    if (done) {
      return false;
    }
    if (errorOrNull != null && error == null) {
      error = errorOrNull;
    }
    ending();
    done = true;
    notifyAll();
    notifyUpdate();
    return true;
  }

  /** Called under the monitor as the query ends, before it is marked done. */
  protected void ending() {}
}
