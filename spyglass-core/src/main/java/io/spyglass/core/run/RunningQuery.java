package io.spyglass.core.run;

import io.spyglass.core.query.Query;
import io.spyglass.core.query.QueryStats;
import io.spyglass.core.result.Result;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A query running on a runtime, as its submitter sees it, whichever runtime runs it (the embedded
 * engine's handle, or the Flink client's query on the job): its results as they are emitted, its
 * counters, whether it runs, why it ended, and ways to end it.
 *
 * <p>Implementations are thread-safe: results are offered by a runtime thread and taken by any.
 */
public interface RunningQuery {
  /** Its id where it was submitted. */
  String id();

  /** The query as it runs: its text, plan, limits and start. */
  Query query();

  /**
   * The next result, waiting up to {@code timeout}; null when none came in time, or when the query
   * is {@link #isDone() done} and every result has been taken.
   */
  Result poll(long timeout, TimeUnit unit) throws InterruptedException;

  /**
   * True once the query has ended (finished, killed, refused or failed); unread results may remain.
   */
  boolean isDone();

  /** Waits until the query ends; true if it did within the timeout. */
  boolean awaitDone(long timeout, TimeUnit unit) throws InterruptedException;

  /**
   * Waits until the runtime runs the query everywhere it reads (every filter worker or subtask):
   * records read from then on reach it. True if it did within the timeout (or it already ended).
   */
  boolean awaitRunning(long timeout, TimeUnit unit) throws InterruptedException;

  /** Why the query was refused or stopped with an error, or null. */
  String error();

  /** Results offered to the reader so far. */
  long emitted();

  /**
   * Its counters now, as the runtime last counted them: while its final result waits to be read,
   * those that result holds; once it ended, its last. Empty when nothing counted it yet.
   */
  Optional<QueryStats> stats();

  /** Stops the query at once; it emits nothing more. */
  void kill();

  /** Ends the query now, as if its duration were over: it emits its final result, then ends. */
  void finish();

  /**
   * Calls {@code listener} after each result is queued and when the query ends (and, on some
   * runtimes, when it starts running or its counters change), so that a reader can wait for many
   * queries at once instead of polling each. It runs on a runtime thread and must return at once.
   * Results queued before it was set do not call it: poll once after setting it. One listener per
   * query; a second replaces the first.
   */
  void onUpdate(Runnable listener);
}
