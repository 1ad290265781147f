package io.spyglass.flink.client;

import io.spyglass.core.query.Query;
import io.spyglass.core.result.Result;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A query running in a Spyglass job on Flink, as seen from where it was submitted: its results as
 * they arrive, whether it runs, why it ended. Like the embedded engine's handle, results wait in a
 * bounded queue, and a reader that leaves it full is cut off (the query is killed).
 *
 * <p>Results reach the job's result topic at least once by default: after a failure the job may
 * emit a window again. A result whose window number was already delivered, or one after the final
 * result, is dropped here, so a reader sees each window once, in order.
 *
 * <p>Thread-safe: replies are offered by one thread and taken by any.
 */
public final class RemoteQuery {
  private final Query query;
  private final BlockingQueue<Result> results;
  private final int capacity;
  private final Consumer<String> killer;
  private final CountDownLatch running = new CountDownLatch(1);
  private final CountDownLatch done = new CountDownLatch(1);
  private volatile String error;
  private volatile long emitted;
  private volatile long duplicates;
  private volatile Reply.Progress progress = Reply.Progress.NONE;
  private volatile long lastSync = -1;
  private long lastWindow;
  private boolean finalSeen;

  RemoteQuery(Query query, int capacity, Consumer<String> killer) {
    this.query = query;
    this.results = new LinkedBlockingQueue<>(capacity);
    this.capacity = capacity;
    this.killer = killer;
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
  public Result poll(long timeout, TimeUnit unit) throws InterruptedException {
    Result r = results.poll();
    if (r != null || isDone()) {
      return r;
    }
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    while (true) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return null;
      }
      r = results.poll(Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)), TimeUnit.NANOSECONDS);
      if (r != null) {
        return r;
      }
      if (isDone()) {
        return results.poll();
      }
    }
  }

  /**
   * True once the query has ended (finished, killed, refused or failed); unread results may remain.
   */
  public boolean isDone() {
    return done.getCount() == 0;
  }

  public boolean awaitDone(long timeout, TimeUnit unit) throws InterruptedException {
    return done.await(timeout, unit);
  }

  /**
   * Waits until every filter subtask of the job runs the query: records read from then on reach it.
   * True if it did within the timeout (or the query already ended).
   */
  public boolean awaitRunning(long timeout, TimeUnit unit) throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    while (!running.await(20, TimeUnit.MILLISECONDS)) {
      if (isDone()) {
        return true;
      }
      if (System.nanoTime() > deadline) {
        return false;
      }
    }
    return true;
  }

  /** Waits until the job answered sync mark {@code sync} (or a later one) for this query. */
  public boolean awaitSync(long sync, long timeout, TimeUnit unit) throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    synchronized (this) {
      while (lastSync < sync && !isDone()) {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0) {
          return false;
        }
        wait(left);
      }
    }
    return lastSync >= sync || isDone();
  }

  /** Why the query was refused or stopped with an error, or null. */
  public String error() {
    return error;
  }

  /** Results delivered so far. */
  public long emitted() {
    return emitted;
  }

  /** Results dropped because their window had already been delivered. */
  public long duplicates() {
    return duplicates;
  }

  /** The latest counters the job reported (with progress on, or on a sync). */
  public Reply.Progress progress() {
    return progress;
  }

  /** Stops the query; it emits nothing more. */
  public void kill() {
    killer.accept(query.id());
  }

  /** Takes one reply for this query; called by one thread. Returns false once it has ended. */
  synchronized void accept(Reply r) {
    switch (r.kind()) {
      case RUNNING -> running.countDown();
      case RESULT -> offer(r.result());
      case ENDED -> end(r.error());
      case REJECTED -> end(r.error());
      case PROGRESS -> progress = r.progress();
      case SYNCED -> {
        progress = r.progress();
        lastSync = Math.max(lastSync, r.sync());
        notifyAll();
      }
    }
  }

  private void offer(Result r) {
    long window = r.meta().window().map(w -> w.number()).orElse(0L);
    if (finalSeen || (window > 0 && window <= lastWindow)) {
      duplicates++;
      return;
    }
    if (!results.offer(r)) {
      killer.accept(query.id());
      end(
          "The result reader fell behind by "
              + capacity
              + " results and was cut off; read results as they come or use a longer window");
      return;
    }
    lastWindow = Math.max(lastWindow, window);
    finalSeen = r.meta().isFinal();
    emitted++;
  }

  /** Ends the query here, e.g. when the job or the connection to it is gone. */
  synchronized void end(String errorOrNull) {
    if (done.getCount() == 0) {
      return;
    }
    if (errorOrNull != null && error == null) {
      error = errorOrNull;
    }
    done.countDown();
    notifyAll();
  }
}
