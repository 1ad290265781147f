package io.spyglass.flink.client;

import io.spyglass.core.query.Query;
import io.spyglass.core.result.Meta;
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
 * emit a window again. A result whose window was already delivered, or one after the final result,
 * is dropped here, so a reader sees each window once, in order.
 *
 * <p>Thread-safe: replies are offered by one thread and taken by any.
 */
public final class RemoteQuery {
  private final Query query;
  private final String jobId;
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
  private Long lastEventWindow;
  private long lastLate;
  private boolean finalSeen;
  private volatile Runnable onUpdate;

  RemoteQuery(Query query, String jobId, int capacity, Consumer<String> killer) {
    this.query = query;
    this.jobId = jobId;
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

  /** The query's id in the job (an instance's ids are prefixed with its name there). */
  public String jobId() {
    return jobId;
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

  /**
   * Calls {@code r} (on the thread that reads replies; it must return at once) whenever a result
   * arrives, the query runs or ends, or its progress changes.
   */
  public void onUpdate(Runnable r) {
    this.onUpdate = r;
  }

  /** Stops the query; it emits nothing more. */
  public void kill() {
    killer.accept(jobId);
  }

  /** Takes one reply for this query; called by one thread. Returns false once it has ended. */
  void accept(Reply r) {
    take(r);
    Runnable u = onUpdate;
    if (u != null) {
      u.run();
    }
  }

  private synchronized void take(Reply r) {
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
    if (finalSeen || repeated(r.meta())) {
      duplicates++;
      return;
    }
    if (!results.offer(withOwnId(r))) {
      killer.accept(jobId);
      end(
          "The result reader fell behind by "
              + capacity
              + " results and was cut off; read results as they come or use a longer window");
      return;
    }
    delivered(r.meta());
    finalSeen = r.meta().isFinal();
    emitted++;
  }

  /**
   * Whether a result was delivered already (the job emits results again after a restart from a
   * checkpoint). Windows of the engine clock or of records are numbered from 1 in order. Windows of
   * event time are numbered by their start, and their final results come in time order; a window's
   * late updates follow any time after it, and each raises the query's count of late records.
   */
  private boolean repeated(Meta m) {
    if (m.window().isEmpty()) {
      return false;
    }
    Meta.WindowMeta w = m.window().get();
    if (w.eventWindow().isEmpty()) {
      return w.number() > 0 && w.number() <= lastWindow;
    }
    if (w.eventWindow().get().lateUpdate()) {
      return m.eventTime().isPresent() && m.eventTime().get().late() <= lastLate;
    }
    return lastEventWindow != null && w.number() <= lastEventWindow;
  }

  private void delivered(Meta m) {
    m.window()
        .ifPresent(
            w -> {
              if (w.eventWindow().isEmpty()) {
                lastWindow = Math.max(lastWindow, w.number());
              } else if (!w.eventWindow().get().lateUpdate()) {
                lastEventWindow = w.number();
              }
            });
    m.eventTime().ifPresent(t -> lastLate = Math.max(lastLate, t.late()));
  }

  /** The result as the submitter named the query. */
  private Result withOwnId(Result r) {
    Meta m = r.meta();
    if (m.queryId().equals(query.id())) {
      return r;
    }
    return new Result(
        r.records(),
        new Meta(
            query.id(),
            m.queryText(),
            m.receiveTimeMs(),
            m.finishTimeMs(),
            m.window(),
            m.sketch(),
            m.errors(),
            m.isFinal(),
            m.badInput(),
            m.eventTime()));
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
