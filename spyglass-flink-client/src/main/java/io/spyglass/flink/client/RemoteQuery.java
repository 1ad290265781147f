package io.spyglass.flink.client;

import io.spyglass.core.SpyglassClock;
import io.spyglass.core.query.Query;
import io.spyglass.core.query.QueryStats;
import io.spyglass.core.result.Meta;
import io.spyglass.core.result.Result;
import io.spyglass.core.run.AbstractRunningQuery;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A query running in a Spyglass job on Flink, as seen from where it was submitted (the client's
 * {@link io.spyglass.core.run.RunningQuery}): its results as they arrive, whether it runs, why it
 * ended. Like the embedded engine's handle, results wait in a bounded queue, and a reader that
 * leaves it full is cut off (the query is killed).
 *
 * <p>Results reach the job's result topic at least once by default: after a failure the job may
 * emit a window again. A result whose window was already delivered, or one after the final result,
 * is dropped here, so a reader sees each window once, in order.
 *
 * <p>Thread-safe: replies are offered by one thread and taken by any.
 */
public final class RemoteQuery extends AbstractRunningQuery {
  private final String jobId;
  private final int capacity;
  private final Consumer<String> killer;
  private final Consumer<String> finisher;
  private final SpyglassClock clock;
  private volatile long duplicates;
  private volatile Reply.Progress progress = Reply.Progress.NONE;
  private volatile long lastSync = -1;
  private long lastWindow;
  private Long lastEventWindow;
  private long lastLate;
  private boolean finalSeen;

  RemoteQuery(
      Query query,
      String jobId,
      int capacity,
      Consumer<String> killer,
      Consumer<String> finisher,
      SpyglassClock clock) {
    super(query);
    this.jobId = jobId;
    this.capacity = capacity;
    this.killer = killer;
    this.finisher = finisher;
    this.clock = clock;
  }

  @Override
  protected long nanoTime() {
    return clock.nanos();
  }

  /** The query's id in the job (an instance's ids are prefixed with its name there). */
  public String jobId() {
    return jobId;
  }

  /** Waits until the job answered sync mark {@code sync} (or a later one) for this query. */
  public boolean awaitSync(long sync, long timeout, TimeUnit unit) throws InterruptedException {
    long deadline = clock.nanos() + unit.toNanos(timeout);
    synchronized (this) {
      while (lastSync < sync && !isDone()) {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - clock.nanos());
        if (left <= 0) {
          return false;
        }
        wait(left);
      }
    }
    return lastSync >= sync || isDone();
  }

  /** Results dropped because their window had already been delivered. */
  public long duplicates() {
    return duplicates;
  }

  /**
   * The latest counters the job reported (with progress on, or on a sync), with the malformed
   * records its filters skipped.
   */
  public Reply.Progress progress() {
    return progress;
  }

  /** The latest counters the job reported (with progress on, or on a sync); zeros before. */
  @Override
  public Optional<QueryStats> stats() {
    Reply.Progress p = progress;
    return Optional.of(new QueryStats(p.seen(), p.matched(), p.evaluationErrors()));
  }

  /** Stops the query; it emits nothing more. */
  @Override
  public void kill() {
    killer.accept(jobId);
  }

  /** Ends the query now; the job emits its final result. */
  @Override
  public void finish() {
    finisher.accept(jobId);
  }

  /** Takes one reply for this query; called by one thread. */
  void accept(Reply r) {
    take(r);
    if (r.kind() == Reply.Kind.RUNNING
        || r.kind() == Reply.Kind.PROGRESS
        || r.kind() == Reply.Kind.SYNCED) {
      notifyUpdate(); // results and ends have told it already
    }
  }

  private synchronized void take(Reply r) {
    switch (r.kind()) {
      case RUNNING -> markRunning();
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
    if (queuedResults() >= capacity) {
      killer.accept(jobId);
      end(
          "The result reader fell behind by "
              + capacity
              + " results and was cut off; read results as they come or use a longer window");
      return;
    }
    enqueue(withOwnId(r));
    delivered(r.meta());
    finalSeen = r.meta().isFinal();
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
    if (m.queryId().equals(id())) {
      return r;
    }
    return new Result(
        r.records(),
        new Meta(
            id(),
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
  void end(String errorOrNull) {
    markDone(errorOrNull);
  }
}
